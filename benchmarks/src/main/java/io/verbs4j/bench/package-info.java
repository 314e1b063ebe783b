// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * verbs4j benchmark tools: the {@code verbs4j} command ({@link io.verbs4j.bench.Main}) and its subcommands.
 */
package io.verbs4j.bench;

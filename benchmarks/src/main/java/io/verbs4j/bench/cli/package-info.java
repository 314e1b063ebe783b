// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * Command-line front ends (picocli): option parsing and validation, exit code 2 on bad input.
 */
package io.verbs4j.bench.cli;

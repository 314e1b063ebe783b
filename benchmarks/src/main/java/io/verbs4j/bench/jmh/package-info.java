// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * JMH suites over the same transport SPI; run with {@code verbs4j jmh}.
 */
package io.verbs4j.bench.jmh;

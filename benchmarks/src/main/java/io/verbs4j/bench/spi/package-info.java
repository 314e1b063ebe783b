// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * The transport-under-test SPI: what a baseline or a verbs transport implements to be measured by perftest and JMH.
 */
package io.verbs4j.bench.spi;

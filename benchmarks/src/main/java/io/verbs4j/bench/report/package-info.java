// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * perftest-style and JSON reporting from HdrHistogram.
 */
package io.verbs4j.bench.report;

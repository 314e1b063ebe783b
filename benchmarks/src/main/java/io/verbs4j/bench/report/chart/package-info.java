// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * Charts of the tools' rows (PNG or SVG, log-log, rendered headless with XChart): {@code perftest --chart},
 * {@code coll --chart} and the {@code chart} tool all read the rows as the tools' JSON lines
 * ({@link io.verbs4j.bench.report.chart.RowReader}), so a chart written after a run and one drawn later from its
 * JSON file are the same.
 */
package io.verbs4j.bench.report.chart;

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * Measuring collectives in their steady state: {@link io.verbs4j.collectives.measure.WarmupPolicy} says when a
 * warm-up is over (a time and call minimum, then stable per-call times, under a cap),
 * {@link io.verbs4j.collectives.measure.WarmupTracker} applies it to one series of windows, and
 * {@link io.verbs4j.collectives.measure.Warmup} runs the calls on every rank with the stop decision shared, so no
 * rank leaves the warm-up while another still calls. Used by the benchmark tools and the demo.
 */
package io.verbs4j.collectives.measure;

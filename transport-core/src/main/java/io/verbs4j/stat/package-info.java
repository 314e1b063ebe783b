// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * Counters readable from outside the process while it runs: groups registered in
 * {@link io.verbs4j.stat.StatRegistry}, written by a {@link io.verbs4j.stat.StatPublisher} to a
 * {@link io.verbs4j.stat.StatFile} that {@code ./verbs4j stat} prints. Providers keep their counters in
 * {@link io.verbs4j.stat.AtomicCounters} (any thread adds) or, on a data path whose state one thread at a time owns,
 * {@link io.verbs4j.stat.SingleWriterCounters} (no atomic instruction), named by an enum of
 * {@link io.verbs4j.stat.CounterType}s.
 */
package io.verbs4j.stat;

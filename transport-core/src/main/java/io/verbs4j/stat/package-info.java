// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * Counters readable from outside the process while it runs: groups registered in
 * {@link io.verbs4j.stat.StatRegistry}, written by a {@link io.verbs4j.stat.StatPublisher} to a
 * {@link io.verbs4j.stat.StatFile} that {@code ./verbs4j stat} prints.
 */
package io.verbs4j.stat;

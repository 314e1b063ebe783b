// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * Transports under test built on the verbs API ({@code shm-write}, {@code tcp-send}, ...): perftest's
 * {@code ib_write_lat/bw}, {@code ib_read_lat/bw}, {@code ib_send_lat/bw} and {@code ib_atomic_lat} methods over a
 * verbs4j provider, plugged into the same harness as the socket and raw-memory baselines.
 */
package io.verbs4j.bench.verbs;

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * The {@code shmem} perf tool (NVSHMEM perftest style: put/p/get/atomic latency, put/get bandwidth over a
 * {@link io.verbs4j.shmem.SymmetricHeap}) with its same-run baselines: raw cache-line ping-pong, memcpy, and a raw
 * tcp RDMA WRITE ping-pong.
 */
package io.verbs4j.bench.shmem;

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * An NVSHMEM/OpenSHMEM-style symmetric heap over the verbs API: {@link io.verbs4j.shmem.SymmetricHeap} (put, get,
 * atomics, put-with-signal, wait-until, fence, quiet, barriers, teams) and {@link io.verbs4j.shmem.SymmetricMemory}
 * (one symmetric allocation, addressed by offset and PE). Same-host PEs are reached by direct load/store through
 * peer memory, the others by RDMA WRITE/READ/atomics; the ordering and completion contract is in the module README.
 */
package io.verbs4j.shmem;

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shmem;

/** How {@link SymmetricHeap#putSignal} updates the signal word ({@code NVSHMEM_SIGNAL_SET / NVSHMEM_SIGNAL_ADD}). */
public enum SignalOp
{
    /** The signal word becomes the value. */
    SET,
    /** The value is added to the signal word atomically (several PEs may signal one word). */
    ADD
}

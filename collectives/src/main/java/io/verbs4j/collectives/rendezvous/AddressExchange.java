// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.rendezvous;

import java.time.Duration;

/**
 * An all-gather of one small byte array per rank, used to swap transport addresses during bootstrap. Engines that
 * already have one (Spark's {@code BarrierTaskContext.allGather(String)}) implement this directly; otherwise use
 * {@link StoreExchange}.
 *
 * <p>Contract: every rank of the group calls {@code allGather} the same number of times, in the same order, with
 * the same {@code size}; call number k on every rank forms one exchange. Each rank may call from any one thread at
 * a time.
 */
@FunctionalInterface
public interface AddressExchange
{
    /**
     * Contributes {@code mine} and returns every rank's contribution.
     *
     * @param rank    this rank, in {@code [0, size)}.
     * @param size    the number of ranks.
     * @param mine    this rank's bytes.
     * @param timeout how long to wait for the slowest rank, positive.
     * @return an array of {@code size} arrays, index = rank; entry {@code rank} equals {@code mine}.
     * @throws RendezvousTimeoutException if some rank did not contribute in time.
     */
    byte[][] allGather(int rank, int size, byte[] mine, Duration timeout);
}

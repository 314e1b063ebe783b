// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.verbs;

import io.verbs4j.Opcode;

/**
 * The verb a verbs transport under test measures, with perftest's tool it follows.
 */
public enum VerbsOperation
{
    /** RDMA WRITE: {@code ib_write_lat} (ping-pong of writes, last byte polled) and {@code ib_write_bw}. */
    WRITE("write", Opcode.RDMA_WRITE, "RDMA WRITE"),
    /** RDMA READ: {@code ib_read_lat} (full READ time) and {@code ib_read_bw}. */
    READ("read", Opcode.RDMA_READ, "RDMA READ"),
    /** SEND/RECV: {@code ib_send_lat} (ping-pong through pre-posted receives) and {@code ib_send_bw}. */
    SEND("send", Opcode.SEND, "SEND/RECV"),
    /** 64-bit fetch-and-add: {@code ib_atomic_lat -A FETCH_AND_ADD} (perftest's default atomic). */
    FETCH_AND_ADD("atomic", Opcode.ATOMIC_FETCH_AND_ADD, "ATOMIC FETCH_AND_ADD"),
    /** 64-bit compare-and-swap: {@code ib_atomic_lat -A CMP_AND_SWAP}. */
    CMP_AND_SWP("atomic-cas", Opcode.ATOMIC_CMP_AND_SWP, "ATOMIC CMP_AND_SWP");

    private final String suffix;
    private final int opcode;
    private final String title;

    VerbsOperation(final String suffix, final int opcode, final String title)
    {
        this.suffix = suffix;
        this.opcode = opcode;
        this.title = title;
    }

    /**
     * The part of the transport name after the provider, e.g. {@code write} in {@code shm-write}.
     *
     * @return the suffix.
     */
    public String suffix()
    {
        return suffix;
    }

    /**
     * The {@link Opcode} posted.
     *
     * @return the opcode.
     */
    public int opcode()
    {
        return opcode;
    }

    /**
     * The verb's name for reports.
     *
     * @return e.g. {@code RDMA WRITE}.
     */
    public String title()
    {
        return title;
    }

    /**
     * Whether this is one of the atomics (8-byte, latency only).
     *
     * @return {@code true} for fetch-and-add and compare-and-swap.
     */
    public boolean isAtomic()
    {
        return Opcode.isAtomic(opcode);
    }

    /**
     * Whether the latency test is one-sided (initiator posts, then polls its own completion; target idle), so that
     * perftest reports the full operation time instead of half a round trip.
     *
     * @return {@code true} for READ and the atomics.
     */
    public boolean isOneSidedLatency()
    {
        return READ == this || isAtomic();
    }
}

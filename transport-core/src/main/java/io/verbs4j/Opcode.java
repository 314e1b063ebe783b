// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j;

/**
 * Work-request and work-completion opcodes, as in {@code enum ibv_wr_opcode} and {@code enum ibv_wc_opcode}.
 * They are {@code int} constants so that completions carry them as primitives.
 * <p>
 * The first seven are posted with {@link SendRequest#opcode(int)} and come back in send completions; {@link #RECV}
 * and {@link #RECV_RDMA_WITH_IMM} appear only in receive completions.
 */
public final class Opcode
{
    /** Two-sided send: consumes a posted receive at the peer. */
    public static final int SEND = 0;
    /** SEND carrying 32 bits of immediate data to the receive completion. */
    public static final int SEND_WITH_IMM = 1;
    /** One-sided write into a peer's region; the peer's application is not involved. */
    public static final int RDMA_WRITE = 2;
    /** RDMA WRITE that also consumes a posted receive at the peer and delivers immediate data. */
    public static final int RDMA_WRITE_WITH_IMM = 3;
    /** One-sided read from a peer's region into local memory. */
    public static final int RDMA_READ = 4;
    /** 64-bit atomic fetch-and-add on a peer's region; the old value lands in the local SGE. */
    public static final int ATOMIC_FETCH_AND_ADD = 5;
    /** 64-bit atomic compare-and-swap on a peer's region; the old value lands in the local SGE. */
    public static final int ATOMIC_CMP_AND_SWP = 6;
    /** Receive completion of a SEND or SEND_WITH_IMM. */
    public static final int RECV = 7;
    /** Receive completion of an RDMA_WRITE_WITH_IMM. */
    public static final int RECV_RDMA_WITH_IMM = 8;

    /** Number of opcodes that may be posted on a send queue. */
    public static final int SEND_OPCODE_COUNT = 7;

    private static final String[] NAMES =
    {
        "SEND", "SEND_WITH_IMM", "RDMA_WRITE", "RDMA_WRITE_WITH_IMM", "RDMA_READ", "ATOMIC_FETCH_AND_ADD",
        "ATOMIC_CMP_AND_SWP", "RECV", "RECV_RDMA_WITH_IMM"
    };

    private Opcode()
    {
    }

    /**
     * @param opcode an opcode.
     * @return its name, or {@code UNKNOWN(n)}.
     */
    public static String name(final int opcode)
    {
        return opcode >= 0 && opcode < NAMES.length ? NAMES[opcode] : "UNKNOWN(" + opcode + ")";
    }

    /**
     * @param opcode an opcode.
     * @return true for the two atomics.
     */
    public static boolean isAtomic(final int opcode)
    {
        return ATOMIC_FETCH_AND_ADD == opcode || ATOMIC_CMP_AND_SWP == opcode;
    }

    /**
     * @param opcode an opcode.
     * @return true when the operation writes into the local SGEs (READ and atomics), so they need LOCAL_WRITE.
     */
    public static boolean writesLocalMemory(final int opcode)
    {
        return RDMA_READ == opcode || isAtomic(opcode);
    }

    /**
     * @param opcode an opcode.
     * @return true when the operation consumes a receive at the peer.
     */
    public static boolean consumesRemoteRecv(final int opcode)
    {
        return SEND == opcode || SEND_WITH_IMM == opcode || RDMA_WRITE_WITH_IMM == opcode;
    }

    /**
     * @param opcode an opcode.
     * @return true when the operation carries immediate data.
     */
    public static boolean hasImmediate(final int opcode)
    {
        return SEND_WITH_IMM == opcode || RDMA_WRITE_WITH_IMM == opcode;
    }
}

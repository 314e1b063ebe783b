// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import io.verbs4j.Opcode;
import io.verbs4j.stat.CounterType;
import io.verbs4j.stat.SingleWriterCounters;

/**
 * The counters every shm device keeps (read them with {@link ShmDevice#counter(ShmCounter)}; {@code ./verbs4j stat}
 * shows them as {@code shm device N}). The data-path counters are kept per queue pair by the side that owns the
 * state (the send side under its lock, the receive side under its own), with no atomic instruction, and summed
 * when read; the rest count rare events (errors, set-up) on the device.
 */
public enum ShmCounter implements CounterType
{
    /** SEND and SEND_WITH_IMM requests taken up by the send side (one restarted after an RNR NAK counts again). */
    SENDS(0, "SEND requests", true),
    /** RDMA WRITE and WRITE_WITH_IMM requests taken up (a store into the peer's region, or served by the peer). */
    RDMA_WRITES(1, "RDMA WRITE requests", true),
    /** RDMA READ requests taken up. */
    RDMA_READS(2, "RDMA READ requests", true),
    /** Atomic requests (fetch-and-add, compare-and-swap) taken up. */
    ATOMICS(3, "atomic requests", true),
    /** Payload bytes of the SEND and RDMA WRITE requests. */
    BYTES_SENT(4, "payload bytes sent (SEND, RDMA WRITE)", true),
    /** Payload bytes of the RDMA READ requests. */
    BYTES_READ(5, "payload bytes read (RDMA READ)", true),
    /** Times a send found the peer's ring full and had to wait for the peer to read it (back-pressure). */
    RING_FULL(6, "sends held back by a full ring", true),
    /** Receives completed successfully (a SEND or WRITE_WITH_IMM of the peer consumed a posted receive). */
    RECEIVES(7, "receives completed", true),
    /** Payload bytes of SENDs placed into posted receives. */
    BYTES_RECEIVED(8, "payload bytes received (SEND)", true),
    /** RNR NAKs sent: a SEND of the peer found no posted receive here. */
    RNR_NAKS_SENT(9, "RNR NAKs sent", true),
    /** Work requests completed with an error status by this provider (flushes of pending requests not counted). */
    ERROR_COMPLETIONS(10, "completions with an error status", false),
    /** Connections established (connect or accept). */
    CONNECTIONS_ESTABLISHED(11, "connections established", false),
    /** Connected queue pairs that went to ERROR: the peer closed or died, or a request failed. */
    CONNECTIONS_FAILED(12, "connections lost (peer closed or died, or an error)", false),
    /** Memory regions allocated as shared segments (files in the shm directory). */
    SEGMENTS_CREATED(13, "region segments created", false),
    /** Segments (regions, connection rings) refused because the shm directory lacks the space. */
    SEGMENTS_REFUSED(14, "segments refused for lack of space", false);

    private final int id;
    private final String label;
    private final boolean perQueuePair;

    ShmCounter(final int id, final String label, final boolean perQueuePair)
    {
        this.id = id;
        this.label = label;
        this.perQueuePair = perQueuePair;
    }

    /** @return the counter's index. */
    @Override
    public int id()
    {
        return id;
    }

    /** @return a human-readable label. */
    @Override
    public String label()
    {
        return label;
    }

    /** @return true if each queue pair counts it (single writer, summed when read); false for a device counter. */
    public boolean perQueuePair()
    {
        return perQueuePair;
    }

    /**
     * Counts a request the send side takes up: its opcode's request counter and its payload bytes (by the writer of
     * {@code counters}: the send side, under its lock; the direct path too).
     *
     * @param counters a queue pair's data-path counters.
     * @param opcode   the request's opcode.
     * @param length   its payload bytes.
     */
    static void countRequest(final SingleWriterCounters counters, final int opcode, final long length)
    {
        switch (opcode)
        {
            case Opcode.SEND:
            case Opcode.SEND_WITH_IMM:
                counters.increment(ShmCounter.SENDS);
                counters.add(ShmCounter.BYTES_SENT, length);
                break;

            case Opcode.RDMA_WRITE:
            case Opcode.RDMA_WRITE_WITH_IMM:
                counters.increment(ShmCounter.RDMA_WRITES);
                counters.add(ShmCounter.BYTES_SENT, length);
                break;

            case Opcode.RDMA_READ:
                counters.increment(ShmCounter.RDMA_READS);
                counters.add(ShmCounter.BYTES_READ, length);
                break;

            default:
                counters.increment(ShmCounter.ATOMICS);
                break;
        }
    }
}

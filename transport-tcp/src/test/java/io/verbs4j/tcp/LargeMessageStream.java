// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.util.concurrent.TimeUnit;

import io.verbs4j.CompletionBatch;
import io.verbs4j.CompletionQueue;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.QueuePair;
import io.verbs4j.RecvRequest;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;

/**
 * One side of a large-message stream on one queue pair, run by both processes of
 * {@link TcpLargeMessageTest#shouldKeepFourMebibyteFramesWholeBetweenProcessesWithSeveralPosters}: in each round it
 * fills two sources with a pattern of its own, posts a WRITE of one into the peer's write slot and a SEND of the
 * other into the peer's receive, waits for both and for the peer's SEND of the same round, then checks every byte
 * the peer wrote and sent. Both sides send at once, so each side's frames leave while the peer's ACKs arrive and
 * its own ACKs leave.
 * <p>
 * Region layout ({@link #REGION_SLOTS} slots of {@code size} bytes): WRITE source, SEND source, write slots for even
 * and odd rounds, receive slots for even and odd rounds. A side posts round {@code r + 1} only after it saw the peer's
 * round {@code r}, which the peer sends only after it checked round {@code r - 1}: two slots of each kind suffice.
 */
final class LargeMessageStream
{
    /** Slots of {@code size} bytes in each side's region. */
    static final int REGION_SLOTS = 6;
    private static final int WRITE_SOURCE = 0;
    private static final int SEND_SOURCE = 1;
    private static final int WRITE_SLOTS = 2;
    private static final int RECV_SLOTS = 4;
    private static final long WRITE_KIND = 1;
    private static final long SEND_KIND = 2;

    private final QueuePair qp;
    private final CompletionQueue cq;
    private final MemoryRegion region;
    private final int size;
    private final long remoteAddress;
    private final int remoteKey;
    private final long ownSeed;
    private final long peerSeed;

    /**
     * @param qp            the connected queue pair.
     * @param cq            its completion queue (send and receive).
     * @param region        this side's region of {@link #REGION_SLOTS} slots.
     * @param size          message size.
     * @param remoteAddress the peer's region address.
     * @param remoteKey     the peer's region rkey.
     * @param ownSeed       this side's pattern seed.
     * @param peerSeed      the peer's pattern seed.
     */
    LargeMessageStream(final QueuePair qp, final CompletionQueue cq, final MemoryRegion region, final int size,
        final long remoteAddress, final int remoteKey, final long ownSeed, final long peerSeed)
    {
        this.qp = qp;
        this.cq = cq;
        this.region = region;
        this.size = size;
        this.remoteAddress = remoteAddress;
        this.remoteKey = remoteKey;
        this.ownSeed = ownSeed;
        this.peerSeed = peerSeed;
    }

    /**
     * Before connecting: the receives of rounds 0 and 1.
     *
     * @param qp     the queue pair (INIT).
     * @param region its region of {@link #REGION_SLOTS} slots.
     * @param size   message size.
     */
    static void postInitialReceives(final QueuePair qp, final MemoryRegion region, final int size)
    {
        postReceive(qp, region, size, 0);
        postReceive(qp, region, size, 1);
    }

    /**
     * @param rounds rounds to run.
     * @return null if every byte of every round arrived as sent, else what went wrong first.
     */
    String run(final int rounds)
    {
        final SendRequest write = new SendRequest(1).opcode(Opcode.RDMA_WRITE);
        final SendRequest send = new SendRequest(1).opcode(Opcode.SEND);
        final CompletionBatch batch = new CompletionBatch(4);
        // Totals over all rounds: the peer's SEND of the next round can complete in the same poll as this round's
        // last send completion.
        long sends = 0;
        long received = 0;
        for (int round = 0; round < rounds; round++)
        {
            final int slot = round & 1;
            fill(WRITE_SOURCE, pattern(ownSeed, WRITE_KIND, round));
            fill(SEND_SOURCE, pattern(ownSeed, SEND_KIND, round));
            write.clearSges().sge(region, (long)WRITE_SOURCE * size, size).wrId(round * 2L)
                .remote(remoteAddress + (long)(WRITE_SLOTS + slot) * size, remoteKey);
            send.clearSges().sge(region, (long)SEND_SOURCE * size, size).wrId(round * 2L + 1);
            if (QueuePair.OK != qp.postSend(write) || QueuePair.OK != qp.postSend(send))
            {
                return "round " + round + ": post refused";
            }
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (sends < 2L * (round + 1) || received < round + 1)
            {
                if (System.nanoTime() > deadline)
                {
                    return "round " + round + ": no completion within 60 s (" + sends + " sends and " + received +
                        " receives completed)";
                }
                batch.clear();
                try
                {
                    cq.poll(batch, 4, 100, TimeUnit.MILLISECONDS);
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    return "interrupted";
                }
                for (int i = 0; i < batch.size(); i++)
                {
                    if (WcStatus.SUCCESS != batch.status(i))
                    {
                        return "round " + round + ": wrId " + batch.wrId(i) + " completed with " +
                            WcStatus.name(batch.status(i));
                    }
                    if (Opcode.RECV == batch.opcode(i))
                    {
                        if (batch.byteLength(i) != size)
                        {
                            return "round " + round + ": received " + batch.byteLength(i) + " bytes";
                        }
                        received++;
                    }
                    else
                    {
                        sends++;
                    }
                }
            }
            // The peer's WRITE of this round precedes its SEND on the same connection: both have landed.
            String error = check(WRITE_SLOTS + slot, pattern(peerSeed, WRITE_KIND, round), "WRITE", round);
            if (null == error)
            {
                error = check(RECV_SLOTS + slot, pattern(peerSeed, SEND_KIND, round), "SEND", round);
            }
            if (null != error)
            {
                return error;
            }
            if (round + 2 < rounds)
            {
                postReceive(qp, region, size, slot);
            }
        }
        return null;
    }

    private static void postReceive(final QueuePair qp, final MemoryRegion region, final int size, final int slot)
    {
        if (QueuePair.OK != qp.postRecv(new RecvRequest(1).wrId(100 + slot).sge(region,
            (long)(RECV_SLOTS + slot) * size, size)))
        {
            throw new IllegalStateException("receive refused");
        }
    }

    private static long pattern(final long seed, final long kind, final int round)
    {
        return mix(seed * 31 + kind) + ((long)round << 32);
    }

    private void fill(final int slot, final long pattern)
    {
        final long base = (long)slot * size;
        for (int i = 0; i < size; i += 8)
        {
            region.putLong(base + i, mix(pattern + i));
        }
    }

    private String check(final int slot, final long pattern, final String what, final int round)
    {
        final long base = (long)slot * size;
        for (int i = 0; i < size; i += 8)
        {
            final long expected = mix(pattern + i);
            final long actual = region.getLong(base + i);
            if (expected != actual)
            {
                return "round " + round + ": " + what + " corrupt at byte " + i + " of " + size + ": expected " +
                    Long.toHexString(expected) + ", found " + Long.toHexString(actual);
            }
        }
        return null;
    }

    /** SplitMix64's finaliser: a different word for every position, round, kind and side. */
    private static long mix(final long value)
    {
        long z = value * 0x9E37_79B9_7F4A_7C15L;
        z = (z ^ z >>> 30) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ z >>> 27) * 0x94D0_49BB_1331_11EBL;
        return z ^ z >>> 31;
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.conformance;

import java.util.SplittableRandom;

import io.verbs4j.Opcode;

/**
 * One side's work for one round of the mixed two-way stress ({@link AbstractMixedTrafficConformanceTest}): a pure
 * function of {@code (seed, role, round, count, limits)}, so that each side computes, besides its own schedule, the
 * other side's and therefore knows every byte and every receive that must arrive.
 * <p>
 * Each operation has an opcode (all seven, weighted towards WRITE, SEND and small multi-SGE READs), a length, 1 to 3
 * SGEs (their lengths), signaled or not (never more than {@link #SIGNAL_INTERVAL} unsignaled in a row, and the last
 * one signaled, so the send queue always drains), inline or not, and the places it uses:
 * <ul>
 * <li>{@link #localOffset(int)}: its slot in the side's local region: the SGE pieces of a SEND/WRITE source, of a
 * READ destination, or the 8-byte result of an atomic, each piece after a {@link #GAP}-byte canary gap;</li>
 * <li>{@link #remoteOffset(int)}: where a WRITE lands in the other side's write region (packed per round), or where a
 * READ reads in the other side's read region;</li>
 * <li>atomics work on the round's two counters of the other side ({@link #atomicOffset(int)}): FETCH_AND_ADD on the
 * first, CMP_AND_SWP on the second; only this side touches them, so {@link #expectedAtomic(int)} (the value the
 * operation returns) and {@link #finalAdd()}/{@link #finalSwap()} follow from the schedule alone.</li>
 * </ul>
 * Payload bytes come from {@link #payload(long, byte[], int, int)} with the operation's {@link #payloadKey(int)}.
 */
public final class MixedSchedule
{
    /** Largest payload of one operation. */
    public static final int MAX_LENGTH = 4096;
    /** Most SGEs of one operation. */
    public static final int MAX_SGES = 3;
    /** Canary bytes before each SGE piece of a local slot (a scatter or gather out of place shows there). */
    public static final int GAP = 8;
    /** Largest local slot of one operation. */
    public static final int MAX_SLOT = MAX_LENGTH + GAP * MAX_SGES + 8;
    /** Bytes of a side's read region (READs read random ranges of it). */
    public static final int READ_REGION_LENGTH = 64 * 1024;
    /** Bytes of a round's counters in a side's atomic region. */
    public static final int ATOMIC_SLOT = 16;
    /** Most unsignaled operations in a row. */
    public static final int SIGNAL_INTERVAL = 16;
    /** Byte the unused parts of local slots hold. */
    public static final byte CANARY = 0x5A;

    private final int count;
    private final int[] opcode;
    private final boolean[] signaled;
    private final boolean[] inline;
    private final int[] length;
    private final int[][] sgeLengths;
    private final int[] immediate;
    private final long[] localOffset;
    private final long[] remoteOffset;
    private final long[] compareAdd;
    private final long[] swap;
    private final long[] expectedAtomic;
    private final long[] payloadKey;
    private final int[] recvConsumers;
    private final int atomicOffset;
    private final long localLength;
    private final long writeLength;
    private final long finalAdd;
    private final long finalSwap;

    private MixedSchedule(final Limits limits, final long seed, final int role, final int round)
    {
        count = limits.operations();
        opcode = new int[count];
        signaled = new boolean[count];
        inline = new boolean[count];
        length = new int[count];
        sgeLengths = new int[count][];
        immediate = new int[count];
        localOffset = new long[count];
        remoteOffset = new long[count];
        compareAdd = new long[count];
        swap = new long[count];
        expectedAtomic = new long[count];
        payloadKey = new long[count];
        atomicOffset = round * ATOMIC_SLOT;
        final SplittableRandom random = new SplittableRandom(mix(seed, role, round, -1));
        final int[] consumers = new int[count];
        int consumerCount = 0;
        long local = 0;
        long written = 0;
        long add = 0;
        long current = 0;
        int unsignaled = 0;
        for (int i = 0; i < count; i++)
        {
            final int op = pickOpcode(random, limits);
            opcode[i] = op;
            payloadKey[i] = mix(seed, role, round, i);
            final boolean read = Opcode.RDMA_READ == op;
            final boolean atomic = Opcode.isAtomic(op);
            int sges = 1;
            int len = 8;
            if (!atomic)
            {
                sges = read ? (random.nextInt(5) < 4 ? 2 + random.nextInt(2) : 1) : 1 + random.nextInt(3);
                sges = Math.min(sges, limits.maxSges());
                len = read ? readLength(random) : dataLength(random);
                if (0 == len && sges > 1)
                {
                    sges = 1;
                }
                len = Math.max(len, sges > 1 ? sges : 0);
            }
            length[i] = len;
            sgeLengths[i] = atomic ? new int[] {8} : split(random, len, sges);
            localOffset[i] = local;
            local += align8(len + (long)GAP * sgeLengths[i].length);
            if (Opcode.RDMA_WRITE == op || Opcode.RDMA_WRITE_WITH_IMM == op)
            {
                remoteOffset[i] = written;
                written += align8(len);
            }
            else if (read)
            {
                remoteOffset[i] = random.nextInt(READ_REGION_LENGTH - len + 1);
            }
            if (Opcode.SEND_WITH_IMM == op || Opcode.RDMA_WRITE_WITH_IMM == op)
            {
                immediate[i] = random.nextInt();
            }
            if (Opcode.SEND == op || Opcode.SEND_WITH_IMM == op || Opcode.RDMA_WRITE_WITH_IMM == op)
            {
                consumers[consumerCount++] = i;
                inline[i] = len <= limits.maxInline() && random.nextInt(10) < 3;
            }
            else if (Opcode.RDMA_WRITE == op)
            {
                inline[i] = len <= limits.maxInline() && random.nextInt(10) < 3;
            }
            if (Opcode.ATOMIC_FETCH_AND_ADD == op)
            {
                compareAdd[i] = random.nextLong();
                expectedAtomic[i] = add;
                add += compareAdd[i];
            }
            else if (Opcode.ATOMIC_CMP_AND_SWP == op)
            {
                final boolean match = random.nextBoolean();
                compareAdd[i] = match ? current : current ^ (1L | random.nextLong());
                swap[i] = random.nextLong();
                expectedAtomic[i] = current;
                if (match)
                {
                    current = swap[i];
                }
            }
            signaled[i] = random.nextBoolean() || unsignaled >= SIGNAL_INTERVAL - 1 || i == count - 1;
            unsignaled = signaled[i] ? 0 : unsignaled + 1;
        }
        recvConsumers = java.util.Arrays.copyOf(consumers, consumerCount);
        localLength = local;
        writeLength = written;
        finalAdd = add;
        finalSwap = current;
    }

    /**
     * @param limits what both sides' devices allow, and how many operations a round has.
     * @param seed   the run's seed.
     * @param role   0 (the side that connects) or 1 (the side that accepts).
     * @param round  round number, from 0.
     * @return the schedule of that side for that round.
     */
    public static MixedSchedule generate(final Limits limits, final long seed, final int role, final int round)
    {
        return new MixedSchedule(limits, seed, role, round);
    }

    private static int pickOpcode(final SplittableRandom random, final Limits limits)
    {
        final int r = random.nextInt(100);
        final int op;
        if (r < 16)
        {
            op = Opcode.SEND;
        }
        else if (r < 26)
        {
            op = Opcode.SEND_WITH_IMM;
        }
        else if (r < 48)
        {
            op = Opcode.RDMA_WRITE;
        }
        else if (r < 58)
        {
            op = limits.writeWithImmediate() ? Opcode.RDMA_WRITE_WITH_IMM : Opcode.SEND_WITH_IMM;
        }
        else if (r < 80)
        {
            op = Opcode.RDMA_READ;
        }
        else if (r < 90)
        {
            op = limits.atomics() ? Opcode.ATOMIC_FETCH_AND_ADD : Opcode.RDMA_WRITE;
        }
        else
        {
            op = limits.atomics() ? Opcode.ATOMIC_CMP_AND_SWP : Opcode.RDMA_READ;
        }
        return op;
    }

    private static int dataLength(final SplittableRandom random)
    {
        final int r = random.nextInt(100);
        if (r < 30)
        {
            return random.nextInt(65);
        }
        if (r < 80)
        {
            return 65 + random.nextInt(960);
        }
        return 1025 + random.nextInt(MAX_LENGTH - 1024);
    }

    private static int readLength(final SplittableRandom random)
    {
        return random.nextInt(10) < 7 ? 1 + random.nextInt(256) : 257 + random.nextInt(MAX_LENGTH - 256);
    }

    private static int[] split(final SplittableRandom random, final int len, final int sges)
    {
        final int[] parts = new int[sges];
        int left = len;
        for (int k = 0; k < sges - 1; k++)
        {
            // Each piece gets at least one byte; the rest is spread at random.
            final int most = left - (sges - 1 - k);
            parts[k] = 1 + random.nextInt(Math.max(1, most));
            left -= parts[k];
        }
        parts[sges - 1] = left;
        return parts;
    }

    private static long align8(final long value)
    {
        return (value + 7) & ~7L;
    }

    /**
     * @param seed  the run's seed.
     * @param role  side.
     * @param round round.
     * @param op    operation (-1 for the round's own stream, -2 for the side's read region).
     * @return a well-mixed 64-bit key.
     */
    static long mix(final long seed, final int role, final int round, final int op)
    {
        long z = seed * 0x9E3779B97F4A7C15L + ((long)role << 56) + ((long)round << 32) + (op & 0xFFFFFFFFL);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /**
     * @param seed the run's seed.
     * @param role the side that owns the read region.
     * @return the payload key of that side's read region.
     */
    public static long readRegionKey(final long seed, final int role)
    {
        return mix(seed, role, -1, -2);
    }

    /**
     * Fills {@code out[0, length)} with the payload of {@code key}, from byte {@code from} of that payload on.
     *
     * @param key    payload key.
     * @param out    destination.
     * @param from   first payload byte wanted.
     * @param length bytes.
     */
    public static void payload(final long key, final byte[] out, final int from, final int length)
    {
        for (int i = 0; i < length; i++)
        {
            final int index = from + i;
            long z = key + (index >>> 3) * 0x9E3779B97F4A7C15L;
            z = (z ^ (z >>> 33)) * 0xFF51AFD7ED558CCDL;
            z ^= z >>> 29;
            out[i] = (byte)(z >>> ((index & 7) << 3));
        }
    }

    /** @return operations in the round. */
    public int count()
    {
        return count;
    }

    /**
     * @param i operation.
     * @return its {@link Opcode}.
     */
    public int opcode(final int i)
    {
        return opcode[i];
    }

    /**
     * @param i operation.
     * @return true if it asks for a completion.
     */
    public boolean signaled(final int i)
    {
        return signaled[i];
    }

    /**
     * @param i operation.
     * @return true if its payload is copied at post time.
     */
    public boolean inline(final int i)
    {
        return inline[i];
    }

    /**
     * @param i operation.
     * @return its length in bytes (8 for atomics).
     */
    public int length(final int i)
    {
        return length[i];
    }

    /**
     * @param i operation.
     * @return its SGE count.
     */
    public int sgeCount(final int i)
    {
        return sgeLengths[i].length;
    }

    /**
     * @param i operation.
     * @param k SGE.
     * @return that SGE's length.
     */
    public int sgeLength(final int i, final int k)
    {
        return sgeLengths[i][k];
    }

    /**
     * @param i operation.
     * @param k SGE.
     * @return where that SGE's piece starts in the local region (after its canary gap).
     */
    public long sgeOffset(final int i, final int k)
    {
        long offset = localOffset[i] + GAP;
        for (int j = 0; j < k; j++)
        {
            offset += sgeLengths[i][j] + GAP;
        }
        return offset;
    }

    /**
     * @param i operation.
     * @return its immediate data (SEND_WITH_IMM, RDMA_WRITE_WITH_IMM).
     */
    public int immediate(final int i)
    {
        return immediate[i];
    }

    /**
     * @param i operation.
     * @return the start of its slot in the local region.
     */
    public long localOffset(final int i)
    {
        return localOffset[i];
    }

    /**
     * @param i operation.
     * @return offset in the other side's write region (WRITEs) or read region (READs).
     */
    public long remoteOffset(final int i)
    {
        return remoteOffset[i];
    }

    /**
     * @param i operation.
     * @return the atomic's add or compare operand.
     */
    public long compareAdd(final int i)
    {
        return compareAdd[i];
    }

    /**
     * @param i operation.
     * @return the CMP_AND_SWP's swap operand.
     */
    public long swap(final int i)
    {
        return swap[i];
    }

    /**
     * @param i operation.
     * @return the value the atomic must return.
     */
    public long expectedAtomic(final int i)
    {
        return expectedAtomic[i];
    }

    /**
     * @param i operation.
     * @return the key of its payload bytes.
     */
    public long payloadKey(final int i)
    {
        return payloadKey[i];
    }

    /** @return how many of the round's operations consume a receive of the other side. */
    public int recvCount()
    {
        return recvConsumers.length;
    }

    /**
     * @param k receive number in the round.
     * @return the operation that consumes it.
     */
    public int recvConsumer(final int k)
    {
        return recvConsumers[k];
    }

    /**
     * @param counter 0 for the FETCH_AND_ADD counter, 1 for the CMP_AND_SWP one.
     * @return its offset in the other side's atomic region.
     */
    public long atomicOffset(final int counter)
    {
        return atomicOffset + 8L * counter;
    }

    /** @return bytes of the local region the round uses. */
    public long localLength()
    {
        return localLength;
    }

    /** @return bytes of the other side's write region the round writes. */
    public long writeLength()
    {
        return writeLength;
    }

    /** @return the FETCH_AND_ADD counter's value after the round. */
    public long finalAdd()
    {
        return finalAdd;
    }

    /** @return the CMP_AND_SWP counter's value after the round. */
    public long finalSwap()
    {
        return finalSwap;
    }

    /**
     * @param i operation.
     * @return a one-line description for failure messages.
     */
    public String describe(final int i)
    {
        final StringBuilder sb = new StringBuilder().append("op#").append(i).append(' ')
            .append(Opcode.name(opcode[i])).append(" len=").append(length[i]).append(" sges=")
            .append(sgeLengths[i].length);
        if (inline[i])
        {
            sb.append(" inline");
        }
        return sb.append(signaled[i] ? " signaled" : " unsignaled").toString();
    }

    /**
     * What both sides' devices allow, and the size of a round. Both sides must use the same limits (the side that
     * connects sends its own to the other).
     *
     * @param operations         operations per side and round.
     * @param maxSges            most SGEs per request (at most {@link #MAX_SGES} are used).
     * @param maxInline          largest inline payload.
     * @param atomics            true if atomics are supported.
     * @param writeWithImmediate true if RDMA_WRITE_WITH_IMM is supported.
     */
    public record Limits(int operations, int maxSges, int maxInline, boolean atomics, boolean writeWithImmediate)
    {
        /**
         * @param operations operations per side and round.
         * @param maxSges    most SGEs per request.
         * @param maxInline  largest inline payload.
         * @param atomics    atomics supported.
         * @param writeWithImmediate RDMA_WRITE_WITH_IMM supported.
         */
        public Limits
        {
            if (operations < 1 || maxSges < 1 || maxInline < 0)
            {
                throw new IllegalArgumentException("bad limits " + operations + " " + maxSges + " " + maxInline);
            }
            maxSges = Math.min(MAX_SGES, maxSges);
        }

        /** @return the limits as one space-free token, for the peer's command pipe. */
        public String encode()
        {
            return operations + "," + maxSges + "," + maxInline + "," + atomics + "," + writeWithImmediate;
        }

        /**
         * @param token what {@link #encode()} made.
         * @return the limits.
         */
        public static Limits decode(final String token)
        {
            final String[] f = token.split(",");
            return new Limits(Integer.parseInt(f[0]), Integer.parseInt(f[1]), Integer.parseInt(f[2]),
                Boolean.parseBoolean(f[3]), Boolean.parseBoolean(f[4]));
        }
    }
}

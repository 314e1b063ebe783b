// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.system.support;

import java.util.zip.CRC32C;

import io.verbs4j.MemoryRegion;

/**
 * Self-checking messages of the system tests, so that a receiver can prove every byte it got intact:
 * <pre>
 *  0  magic i32   SEND_MAGIC (payload follows) | WRITE_MAGIC (descriptor of an RDMA WRITE that went before it)
 *  4  length i32  payload bytes
 *  8  seq i64     per-connection sequence, checked for order
 * 16  crc i32     CRC32C of the payload
 * 20  unused i32
 * 24  payload (SEND) | remote offset i64 of the written bytes (WRITE descriptor)
 * </pre>
 * Plus a position-dependent byte pattern for memory the initiator READs.
 */
public final class Messages
{
    /** Header bytes before a SEND's payload. */
    public static final int HEADER_LENGTH = 24;
    /** Length of a WRITE descriptor. */
    public static final int DESCRIPTOR_LENGTH = 32;
    /** A SEND with its payload. */
    public static final int SEND_MAGIC = 0x53454E44;
    /** A WRITE descriptor. */
    public static final int WRITE_MAGIC = 0x57524954;
    /** Offsets. */
    public static final int MAGIC_OFFSET = 0;
    /** Offsets. */
    public static final int LENGTH_OFFSET = 4;
    /** Offsets. */
    public static final int SEQ_OFFSET = 8;
    /** Offsets. */
    public static final int CRC_OFFSET = 16;
    /** Offsets. */
    public static final int REMOTE_OFFSET_OFFSET = 24;

    private Messages()
    {
    }

    /**
     * CRC32C of a range of a region, across its mapping chunks.
     *
     * @param mr     region.
     * @param offset start.
     * @param length bytes.
     * @return the checksum.
     */
    public static int crc(final MemoryRegion mr, final long offset, final long length)
    {
        final CRC32C crc = new CRC32C();
        long done = 0;
        while (done < length)
        {
            final int piece = (int)Math.min(Math.min(length - done, mr.contiguousLength(offset + done)), 1 << 30);
            crc.update(mr.byteBuffer(offset + done, piece));
            done += piece;
        }
        return (int)crc.getValue();
    }

    /**
     * @param position a byte's offset in a region.
     * @return the pattern byte there.
     */
    public static byte patternByte(final long position)
    {
        long x = position * 0x9E3779B97F4A7C15L;
        x ^= x >>> 29;
        return (byte)(x ^ (x >>> 8));
    }

    /**
     * Fills a region with {@link #patternByte}.
     *
     * @param mr the region.
     */
    public static void fillPattern(final MemoryRegion mr)
    {
        final byte[] chunk = new byte[1 << 16];
        for (long base = 0; base < mr.length(); base += chunk.length)
        {
            final int n = (int)Math.min(chunk.length, mr.length() - base);
            for (int i = 0; i < n; i++)
            {
                chunk[i] = patternByte(base + i);
            }
            mr.putBytes(base, chunk, 0, n);
        }
    }

    /**
     * @param mr     local copy of remote bytes.
     * @param offset where they are in {@code mr}.
     * @param remote where they came from in the patterned region.
     * @param length bytes.
     * @return the first position that differs, or -1.
     */
    public static long firstPatternMismatch(final MemoryRegion mr, final long offset, final long remote,
        final int length)
    {
        final byte[] got = new byte[length];
        mr.getBytes(offset, got, 0, length);
        for (int i = 0; i < length; i++)
        {
            if (got[i] != patternByte(remote + i))
            {
                return i;
            }
        }
        return -1;
    }

    /**
     * Writes a SEND message (header + payload copied from {@code pool}) into a slot.
     *
     * @param mr         the send region.
     * @param slot       where the message starts.
     * @param seq        its sequence.
     * @param pool       random bytes.
     * @param poolOffset where the payload starts in {@code pool}.
     * @param length     payload bytes.
     * @return the payload's CRC32C.
     */
    public static int writeSend(final MemoryRegion mr, final long slot, final long seq, final byte[] pool,
        final int poolOffset, final int length)
    {
        mr.putBytes(slot + HEADER_LENGTH, pool, poolOffset, length);
        final int crc = crc(mr, slot + HEADER_LENGTH, length);
        mr.putInt(slot + MAGIC_OFFSET, SEND_MAGIC);
        mr.putInt(slot + LENGTH_OFFSET, length);
        mr.putLong(slot + SEQ_OFFSET, seq);
        mr.putInt(slot + CRC_OFFSET, crc);
        mr.putInt(slot + 20, 0);
        return crc;
    }

    /**
     * Checks a received SEND message.
     *
     * @param mr          the receive region.
     * @param slot        where it landed.
     * @param byteLength  the completion's length.
     * @param expectedSeq the sequence expected next.
     * @return null if intact, else what is wrong.
     */
    public static String checkSend(final MemoryRegion mr, final long slot, final int byteLength,
        final long expectedSeq)
    {
        final int magic = mr.getInt(slot + MAGIC_OFFSET);
        final int length = mr.getInt(slot + LENGTH_OFFSET);
        final long seq = mr.getLong(slot + SEQ_OFFSET);
        if (SEND_MAGIC != magic || length < 0 || HEADER_LENGTH + length != byteLength)
        {
            return "bad header magic=" + Integer.toHexString(magic) + " length=" + length + " byteLength=" +
                byteLength + " seq=" + seq + " expected seq " + expectedSeq;
        }
        if (seq != expectedSeq)
        {
            return "seq " + seq + " where " + expectedSeq + " was expected";
        }
        final int crc = crc(mr, slot + HEADER_LENGTH, length);
        if (crc != mr.getInt(slot + CRC_OFFSET))
        {
            return "CRC32C mismatch on seq " + seq + " length " + length;
        }
        return null;
    }
}

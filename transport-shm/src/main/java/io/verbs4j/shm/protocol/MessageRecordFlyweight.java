// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm.protocol;

import org.agrona.UnsafeApi;

/**
 * A flyweight over the common header of a data-ring message record ({@link FrameDescriptor}: version, flags,
 * immediate, MSN, message length, source count) and the inline payload after it, written and read at the record's
 * native address with plain stores and loads: no bounds check per field, since the ring's claim (writer) or read
 * (reader) has already placed the whole record inside the ring. Every field is written exactly once, in place, and
 * a payload up to {@link #SMALL_COPY_LIMIT} bytes is copied eight bytes at a time, not through a copy routine.
 * <p>
 * Threading: holds only an address; one instance per ring end, used by whoever holds that end (the send-side lock
 * for the writer, the device's progress for the reader). Byte order: native, as Agrona's buffers write the other
 * fields.
 */
public final class MessageRecordFlyweight
{
    /** Largest payload copied by this flyweight's own loop of 8-byte loads and stores. */
    public static final int SMALL_COPY_LIMIT = 64;

    private long address;

    /**
     * Points the flyweight at a record.
     *
     * @param recordAddress the native address of the record's first byte (after Agrona's record header).
     * @return this.
     */
    public MessageRecordFlyweight wrap(final long recordAddress)
    {
        this.address = recordAddress;
        return this;
    }

    /**
     * Writes the whole common header.
     *
     * @param version       the segment format version.
     * @param flags         {@code FLAG_*} bits.
     * @param immediate     the immediate data (0 when none).
     * @param msn           the record's message sequence number.
     * @param messageLength the message length (payload bytes for an inline SEND).
     * @param sourceCount   the rendezvous source count, else 0.
     */
    public void putHeader(
        final int version,
        final int flags,
        final int immediate,
        final long msn,
        final int messageLength,
        final int sourceCount)
    {
        final long a = address;
        UnsafeApi.putShort(null, a + FrameDescriptor.VERSION_OFFSET, (short)version);
        UnsafeApi.putShort(null, a + FrameDescriptor.FLAGS_OFFSET, (short)flags);
        UnsafeApi.putInt(null, a + FrameDescriptor.IMMEDIATE_OFFSET, immediate);
        UnsafeApi.putLong(null, a + FrameDescriptor.MSN_OFFSET, msn);
        UnsafeApi.putInt(null, a + FrameDescriptor.MESSAGE_LENGTH_OFFSET, messageLength);
        UnsafeApi.putInt(null, a + FrameDescriptor.SOURCE_COUNT_OFFSET, sourceCount);
    }

    /**
     * Copies a payload from contiguous native memory into the record.
     *
     * @param srcAddress where the payload is.
     * @param length     its length in bytes.
     */
    public void putPayload(final long srcAddress, final int length)
    {
        copy(srcAddress, address + FrameDescriptor.PAYLOAD_OFFSET, length);
    }

    /** @return the native address of the payload (or the sources). */
    public long payloadAddress()
    {
        return address + FrameDescriptor.PAYLOAD_OFFSET;
    }

    /** @return the version field. */
    public int version()
    {
        return UnsafeApi.getShort(null, address + FrameDescriptor.VERSION_OFFSET);
    }

    /** @return the flags field. */
    public int flags()
    {
        return UnsafeApi.getShort(null, address + FrameDescriptor.FLAGS_OFFSET);
    }

    /** @return the immediate data field. */
    public int immediate()
    {
        return UnsafeApi.getInt(null, address + FrameDescriptor.IMMEDIATE_OFFSET);
    }

    /** @return the MSN field. */
    public long msn()
    {
        return UnsafeApi.getLong(null, address + FrameDescriptor.MSN_OFFSET);
    }

    /** @return the message length field. */
    public int messageLength()
    {
        return UnsafeApi.getInt(null, address + FrameDescriptor.MESSAGE_LENGTH_OFFSET);
    }

    /** @return the source count field. */
    public int sourceCount()
    {
        return UnsafeApi.getInt(null, address + FrameDescriptor.SOURCE_COUNT_OFFSET);
    }

    /**
     * Copies {@code length} bytes between native addresses: eight at a time up to {@link #SMALL_COPY_LIMIT} (a
     * small SEND's payload, where a call into the copy routine costs more than the copy), else by
     * {@link UnsafeApi#copyMemory}.
     */
    static void copy(final long src, final long dst, final int length)
    {
        if (length > SMALL_COPY_LIMIT)
        {
            UnsafeApi.copyMemory(src, dst, length);
            return;
        }
        int i = 0;
        for (; i + Long.BYTES <= length; i += Long.BYTES)
        {
            UnsafeApi.putLong(null, dst + i, UnsafeApi.getLong(null, src + i));
        }
        for (; i < length; i++)
        {
            UnsafeApi.putByte(null, dst + i, UnsafeApi.getByte(null, src + i));
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.util.internal.PlatformDependent;

/**
 * Flyweight over the fixed 32-byte header that starts every frame after the handshake. All fields are
 * little-endian (the byte order of x86-64 and AArch64, so neither side swaps bytes).
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |    version    |     type      |             flags             |  0
 *  +---------------+---------------+-------------------------------+
 *  |                  payload length (bytes after header)          |  4
 *  +---------------------------------------------------------------+
 *  |                                                               |  8
 *  +                sequence (PSN of the request)                  +
 *  |                                                               | 12
 *  +---------------------------------------------------------------+
 *  |                                                               | 16
 *  +        remote address  |  original value (ATOMIC_RESPONSE)    +
 *  |                                                               | 20
 *  +---------------------------------------------------------------+
 *  |                             rkey                              | 24
 *  +---------------------------------------------------------------+
 *  |   argument: immediate | READ length | WcStatus (NAK)          | 28
 *  +---------------------------------------------------------------+
 *  |                 payload (payload length bytes) ...            | 32
 * </pre>
 * The sequence is the initiator's send-queue position; responses (ACK, NAK, RNR_NAK, READ_RESPONSE,
 * ATOMIC_RESPONSE) echo it. ATOMIC_REQUEST carries its operands as a 16-byte payload:
 * <pre>
 *  +---------------------------------------------------------------+
 *  |            compare (CMP_SWAP) | add (FETCH_ADD), i64          |  0
 *  +---------------------------------------------------------------+
 *  |                     swap (CMP_SWAP), i64                      |  8
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class FrameFlyweight
{
    /**
     * The protocol version this code speaks; a frame with another version is refused. Version 2 added
     * {@link #FLAG_ACK_REQUEST} (a version-1 receiver acknowledged every read batch); version 3 added the
     * authentication frames ({@link FrameType#AUTH_HELLO}, {@link FrameType#AUTH_CHALLENGE},
     * {@link FrameType#AUTH_RESPONSE}) and {@link HandshakeFlyweight#FLAG_AUTH_REFUSAL}.
     */
    public static final byte CURRENT_VERSION = 3;

    /** Offset of the version byte (always first, in every frame and in the handshake). */
    public static final int VERSION_OFFSET = 0;
    /** Offset of the {@link FrameType} byte. */
    public static final int TYPE_OFFSET = 1;
    /** Offset of the 16-bit flags. */
    public static final int FLAGS_OFFSET = 2;
    /** Offset of the 32-bit payload length. */
    public static final int PAYLOAD_LENGTH_OFFSET = 4;
    /** Offset of the 64-bit sequence. */
    public static final int SEQUENCE_OFFSET = 8;
    /** Offset of the 64-bit remote address (or original value in ATOMIC_RESPONSE). */
    public static final int ADDRESS_OFFSET = 16;
    /** Offset of the 32-bit rkey. */
    public static final int RKEY_OFFSET = 24;
    /** Offset of the 32-bit argument (immediate data, READ length or NAK status). */
    public static final int ARGUMENT_OFFSET = 28;
    /** Length of the header. */
    public static final int HEADER_LENGTH = 32;

    /** Offset of the compare/add operand in an ATOMIC_REQUEST payload. */
    public static final int COMPARE_ADD_OFFSET = 0;
    /** Offset of the swap operand in an ATOMIC_REQUEST payload. */
    public static final int SWAP_OFFSET = 8;
    /** Length of an ATOMIC_REQUEST payload. */
    public static final int ATOMIC_OPERANDS_LENGTH = 16;

    /** Flag: the argument word carries immediate data (SEND_WITH_IMM; always set on WRITE_WITH_IMM). */
    public static final int FLAG_IMMEDIATE = 1;
    /** Flag on ATOMIC_REQUEST: compare-and-swap (clear: fetch-and-add). */
    public static final int FLAG_CMP_SWAP = 1 << 1;
    /** Flag on SEND: the sender asked for a solicited event. */
    public static final int FLAG_SOLICITED = 1 << 2;
    /**
     * Flag on SEND/WRITE/WRITE_WITH_IMM: acknowledge this request at the end of the read batch that completes it.
     * Without it the receiver may defer the (cumulative) ACK until it writes something else to the sender, or
     * until its next heartbeat tick. Set on signaled requests and often enough for flow control.
     */
    public static final int FLAG_ACK_REQUEST = 1 << 3;

    /** Native loads and stores are in the machine's order; the header's fields are little-endian. */
    private static final boolean SWAP_BYTES = PlatformDependent.BIG_ENDIAN_NATIVE_ORDER;

    private ByteBuf buffer;
    private int offset;
    /**
     * The header's native address when the whole header lies in the buffer's native memory, else 0. Field reads and
     * {@link #encode} then are plain loads and stores: a header is read a dozen times per frame (decoder, router,
     * responder), and each {@code ByteBuf} accessor checked the buffer's reference count again.
     */
    private long headerAddress;

    /**
     * Wraps a header. The buffer must stay allocated (reference count above zero) while this flyweight reads or
     * writes it: a header in native memory is then accessed without the buffer's per-access checks.
     *
     * @param buffer the buffer holding a header.
     * @param offset where the header starts.
     * @return this.
     */
    public FrameFlyweight wrap(final ByteBuf buffer, final int offset)
    {
        this.buffer = buffer;
        this.offset = offset;
        this.headerAddress = buffer.hasMemoryAddress() && offset >= 0 &&
            offset <= buffer.capacity() - HEADER_LENGTH ? buffer.memoryAddress() + offset : 0;
        return this;
    }

    /** @return the wrapped buffer. */
    public ByteBuf buffer()
    {
        return buffer;
    }

    /**
     * Writes a whole header with the current version.
     *
     * @param type          a {@link FrameType}.
     * @param flags         flags.
     * @param payloadLength bytes after the header.
     * @param sequence      sequence.
     * @param address       address or value.
     * @param rkey          rkey.
     * @param argument      argument word.
     * @return this.
     */
    public FrameFlyweight encode(
        final byte type,
        final int flags,
        final int payloadLength,
        final long sequence,
        final long address,
        final int rkey,
        final int argument)
    {
        final long a = headerAddress;
        if (0 != a)
        {
            PlatformDependent.putByte(a + VERSION_OFFSET, CURRENT_VERSION);
            PlatformDependent.putByte(a + TYPE_OFFSET, type);
            PlatformDependent.putShort(a + FLAGS_OFFSET, le((short)flags));
            PlatformDependent.putInt(a + PAYLOAD_LENGTH_OFFSET, le(payloadLength));
            PlatformDependent.putLong(a + SEQUENCE_OFFSET, le(sequence));
            PlatformDependent.putLong(a + ADDRESS_OFFSET, le(address));
            PlatformDependent.putInt(a + RKEY_OFFSET, le(rkey));
            PlatformDependent.putInt(a + ARGUMENT_OFFSET, le(argument));
            return this;
        }
        buffer.setByte(offset + VERSION_OFFSET, CURRENT_VERSION);
        buffer.setByte(offset + TYPE_OFFSET, type);
        buffer.setShortLE(offset + FLAGS_OFFSET, flags);
        buffer.setIntLE(offset + PAYLOAD_LENGTH_OFFSET, payloadLength);
        buffer.setLongLE(offset + SEQUENCE_OFFSET, sequence);
        buffer.setLongLE(offset + ADDRESS_OFFSET, address);
        buffer.setIntLE(offset + RKEY_OFFSET, rkey);
        buffer.setIntLE(offset + ARGUMENT_OFFSET, argument);
        return this;
    }

    /** @return the version byte. */
    public int version()
    {
        return 0 != headerAddress ? PlatformDependent.getByte(headerAddress + VERSION_OFFSET) & 0xFF :
            buffer.getUnsignedByte(offset + VERSION_OFFSET);
    }

    /** @return the type byte. */
    public int type()
    {
        return 0 != headerAddress ? PlatformDependent.getByte(headerAddress + TYPE_OFFSET) & 0xFF :
            buffer.getUnsignedByte(offset + TYPE_OFFSET);
    }

    /** @return the flags. */
    public int flags()
    {
        return 0 != headerAddress ? le(PlatformDependent.getShort(headerAddress + FLAGS_OFFSET)) & 0xFFFF :
            buffer.getUnsignedShortLE(offset + FLAGS_OFFSET);
    }

    /** @return the payload length (negative on a corrupt frame). */
    public int payloadLength()
    {
        return 0 != headerAddress ? le(PlatformDependent.getInt(headerAddress + PAYLOAD_LENGTH_OFFSET)) :
            buffer.getIntLE(offset + PAYLOAD_LENGTH_OFFSET);
    }

    /** @return the sequence. */
    public long sequence()
    {
        return 0 != headerAddress ? le(PlatformDependent.getLong(headerAddress + SEQUENCE_OFFSET)) :
            buffer.getLongLE(offset + SEQUENCE_OFFSET);
    }

    /** @return the remote address, or the original value of an ATOMIC_RESPONSE. */
    public long address()
    {
        return 0 != headerAddress ? le(PlatformDependent.getLong(headerAddress + ADDRESS_OFFSET)) :
            buffer.getLongLE(offset + ADDRESS_OFFSET);
    }

    /** @return the rkey. */
    public int rkey()
    {
        return 0 != headerAddress ? le(PlatformDependent.getInt(headerAddress + RKEY_OFFSET)) :
            buffer.getIntLE(offset + RKEY_OFFSET);
    }

    /** @return the argument word. */
    public int argument()
    {
        return 0 != headerAddress ? le(PlatformDependent.getInt(headerAddress + ARGUMENT_OFFSET)) :
            buffer.getIntLE(offset + ARGUMENT_OFFSET);
    }

    private static short le(final short value)
    {
        return SWAP_BYTES ? Short.reverseBytes(value) : value;
    }

    private static int le(final int value)
    {
        return SWAP_BYTES ? Integer.reverseBytes(value) : value;
    }

    private static long le(final long value)
    {
        return SWAP_BYTES ? Long.reverseBytes(value) : value;
    }
}

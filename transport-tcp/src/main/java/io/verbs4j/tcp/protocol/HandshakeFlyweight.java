// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp.protocol;

import io.netty.buffer.ByteBuf;

/**
 * Flyweight over the 32-byte handshake header (CONNECT_REQUEST, CONNECT_ACCEPT, CONNECT_REJECT, and the
 * authentication frames AUTH_HELLO, AUTH_CHALLENGE, AUTH_RESPONSE, whose QP number, sequence and heartbeat fields are
 * 0 and whose payloads are nonces and proofs of fixed lengths). It shares the
 * first eight bytes with {@link FrameFlyweight} (version, type, flags, payload length), so one decoder reads both.
 * Little-endian.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |    version    |     type      |  flags (AUTH_REFUSAL 1, else 0) |  0
 *  +---------------+---------------+-------------------------------+
 *  |        payload length (private data or reject reason)         |  4
 *  +---------------------------------------------------------------+
 *  |                     magic 0x56344A54 ("V4JT")                 |  8
 *  +---------------------------------------------------------------+
 *  |                    queue-pair number of sender                |  12
 *  +---------------------------------------------------------------+
 *  |                                                               |  16
 *  +        initial sequence (sender's first request PSN)          +
 *  |                                                               |  20
 *  +---------------------------------------------------------------+
 *  |                heartbeat interval of sender, µs               |  24
 *  +---------------------------------------------------------------+
 *  |                         reserved (0)                          |  28
 *  +---------------------------------------------------------------+
 *  |  private data / UTF-8 reason / nonce, proof (payload length) ...  32
 * </pre>
 */
public final class HandshakeFlyweight
{
    /** The magic number that tells a verbs4j peer from a stray connection. */
    public static final int MAGIC = 0x56344A54;

    /** Offset of the version byte. */
    public static final int VERSION_OFFSET = FrameFlyweight.VERSION_OFFSET;
    /** Offset of the type byte. */
    public static final int TYPE_OFFSET = FrameFlyweight.TYPE_OFFSET;
    /** Offset of the flags. */
    public static final int FLAGS_OFFSET = FrameFlyweight.FLAGS_OFFSET;
    /** Offset of the payload length. */
    public static final int PAYLOAD_LENGTH_OFFSET = FrameFlyweight.PAYLOAD_LENGTH_OFFSET;
    /** Offset of the magic number. */
    public static final int MAGIC_OFFSET = 8;
    /** Offset of the sender's queue-pair number. */
    public static final int QP_NUMBER_OFFSET = 12;
    /** Offset of the sender's initial sequence. */
    public static final int INITIAL_SEQUENCE_OFFSET = 16;
    /** Offset of the sender's heartbeat interval in microseconds. */
    public static final int HEARTBEAT_INTERVAL_OFFSET = 24;
    /** Offset of the reserved word. */
    public static final int RESERVED_OFFSET = 28;
    /** CONNECT_REJECT flag: the refusal is an authentication failure (wrong, missing or unexpected secret). */
    public static final int FLAG_AUTH_REFUSAL = 1;
    /** AUTH_HELLO and AUTH_RESPONSE payload length: one nonce or one proof. */
    public static final int AUTH_HELLO_LENGTH = 32;
    /** AUTH_CHALLENGE payload length: the acceptor's nonce, then its proof. */
    public static final int AUTH_CHALLENGE_LENGTH = 64;
    /** AUTH_RESPONSE payload length: the connector's proof. */
    public static final int AUTH_RESPONSE_LENGTH = 32;
    /** Length of the handshake header (equal to {@link FrameFlyweight#HEADER_LENGTH}). */
    public static final int HEADER_LENGTH = 32;

    private ByteBuf buffer;
    private int offset;

    /**
     * @param buffer the buffer holding a handshake header.
     * @param offset where it starts.
     * @return this.
     */
    public HandshakeFlyweight wrap(final ByteBuf buffer, final int offset)
    {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /**
     * Writes a whole handshake header with the current version and the magic.
     *
     * @param type                a handshake {@link FrameType}.
     * @param payloadLength       bytes of private data or reason after the header.
     * @param qpNumber            sender's queue-pair number.
     * @param initialSequence     sender's first request sequence.
     * @param heartbeatIntervalUs sender's heartbeat interval.
     * @return this.
     */
    public HandshakeFlyweight encode(
        final byte type,
        final int payloadLength,
        final int qpNumber,
        final long initialSequence,
        final int heartbeatIntervalUs)
    {
        buffer.setByte(offset + VERSION_OFFSET, FrameFlyweight.CURRENT_VERSION);
        buffer.setByte(offset + TYPE_OFFSET, type);
        buffer.setShortLE(offset + FLAGS_OFFSET, 0);
        buffer.setIntLE(offset + PAYLOAD_LENGTH_OFFSET, payloadLength);
        buffer.setIntLE(offset + MAGIC_OFFSET, MAGIC);
        buffer.setIntLE(offset + QP_NUMBER_OFFSET, qpNumber);
        buffer.setLongLE(offset + INITIAL_SEQUENCE_OFFSET, initialSequence);
        buffer.setIntLE(offset + HEARTBEAT_INTERVAL_OFFSET, heartbeatIntervalUs);
        buffer.setIntLE(offset + RESERVED_OFFSET, 0);
        return this;
    }

    /**
     * Sets the flags (after {@link #encode}).
     *
     * @param flags the flags, such as {@link #FLAG_AUTH_REFUSAL}.
     * @return this.
     */
    public HandshakeFlyweight flags(final int flags)
    {
        buffer.setShortLE(offset + FLAGS_OFFSET, flags);
        return this;
    }

    /** @return the flags. */
    public int flags()
    {
        return buffer.getUnsignedShortLE(offset + FLAGS_OFFSET);
    }

    /** @return the version. */
    public int version()
    {
        return buffer.getUnsignedByte(offset + VERSION_OFFSET);
    }

    /** @return the type. */
    public int type()
    {
        return buffer.getUnsignedByte(offset + TYPE_OFFSET);
    }

    /** @return the payload length. */
    public int payloadLength()
    {
        return buffer.getIntLE(offset + PAYLOAD_LENGTH_OFFSET);
    }

    /** @return the magic number. */
    public int magic()
    {
        return buffer.getIntLE(offset + MAGIC_OFFSET);
    }

    /** @return the sender's queue-pair number. */
    public int qpNumber()
    {
        return buffer.getIntLE(offset + QP_NUMBER_OFFSET);
    }

    /** @return the sender's initial sequence. */
    public long initialSequence()
    {
        return buffer.getLongLE(offset + INITIAL_SEQUENCE_OFFSET);
    }

    /** @return the sender's heartbeat interval in microseconds. */
    public int heartbeatIntervalUs()
    {
        return buffer.getIntLE(offset + HEARTBEAT_INTERVAL_OFFSET);
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.verbs4j.tcp.protocol.FrameType;
import io.verbs4j.tcp.protocol.HandshakeFlyweight;

/**
 * The wire side of one connection's {@link TcpHandshake}: the handshake frames it sends (CONNECT_REQUEST and
 * CONNECT_ACCEPT with the queue pair's number, first sequence and heartbeat interval; the AUTH_* proofs; a
 * CONNECT_REJECT, flagged {@link HandshakeFlyweight#FLAG_AUTH_REFUSAL} for an authentication refusal), and the
 * check of a frame it receives: that it is a handshake frame with the right magic. Which frame may come now is the
 * handshake's own state machine ({@link TcpHandshake}).
 * <p>
 * It checks; the handshake acts (protocol errors, refusals, the state). One flyweight serves both directions:
 * after {@link #checkHeader} it stays on the received header for {@link #initialSequence()} and {@link #flags()}
 * until the next frame is encoded. Event loop only.
 */
final class TcpHandshakeFrames
{
    private final TcpConfiguration configuration;
    private final HandshakeFlyweight handshake = new HandshakeFlyweight();

    /**
     * @param configuration the device's configuration (the heartbeat interval a connect frame announces).
     */
    TcpHandshakeFrames(final TcpConfiguration configuration)
    {
        this.configuration = configuration;
    }

    /**
     * A CONNECT_REQUEST or CONNECT_ACCEPT: the queue pair's number, its first send sequence and the private data.
     *
     * @param alloc           the channel's allocator.
     * @param type            {@link FrameType#CONNECT_REQUEST} or {@link FrameType#CONNECT_ACCEPT}.
     * @param qpNumber        the local queue pair's number.
     * @param initialSequence the sequence this side's first request will carry.
     * @param privateData     the private data.
     * @return the frame, for the caller to write.
     */
    ByteBuf connect(final ByteBufAllocator alloc, final byte type, final int qpNumber, final long initialSequence,
        final byte[] privateData)
    {
        final ByteBuf buffer = alloc.directBuffer(HandshakeFlyweight.HEADER_LENGTH + privateData.length);
        handshake.wrap(buffer, 0).encode(type, privateData.length, qpNumber, initialSequence,
            heartbeatIntervalUs());
        buffer.writerIndex(HandshakeFlyweight.HEADER_LENGTH).writeBytes(privateData);
        return buffer;
    }

    /**
     * An AUTH_HELLO, AUTH_CHALLENGE or AUTH_RESPONSE.
     *
     * @param alloc   the channel's allocator.
     * @param type    the frame type.
     * @param payload the nonce or proof.
     * @return the frame, for the caller to write.
     */
    ByteBuf auth(final ByteBufAllocator alloc, final byte type, final byte[] payload)
    {
        final ByteBuf buffer = alloc.directBuffer(HandshakeFlyweight.HEADER_LENGTH + payload.length);
        handshake.wrap(buffer, 0).encode(type, payload.length, 0, 0, 0);
        buffer.writerIndex(HandshakeFlyweight.HEADER_LENGTH).writeBytes(payload);
        return buffer;
    }

    /**
     * A CONNECT_REJECT.
     *
     * @param alloc       the channel's allocator.
     * @param reason      the reason, UTF-8, already cut to what the peer accepts.
     * @param authRefusal true to flag it {@link HandshakeFlyweight#FLAG_AUTH_REFUSAL}: an authentication failure,
     *                    which the peer logs and counts as one.
     * @return the frame, for the caller to write.
     */
    ByteBuf reject(final ByteBufAllocator alloc, final byte[] reason, final boolean authRefusal)
    {
        final ByteBuf buffer = alloc.directBuffer(HandshakeFlyweight.HEADER_LENGTH + reason.length);
        handshake.wrap(buffer, 0).encode(FrameType.CONNECT_REJECT, reason.length, 0, 0, 0);
        if (authRefusal)
        {
            handshake.flags(HandshakeFlyweight.FLAG_AUTH_REFUSAL);
        }
        buffer.writerIndex(HandshakeFlyweight.HEADER_LENGTH).writeBytes(reason);
        return buffer;
    }

    /**
     * Checks a received header (already checked by the decoder as a frame header) as a handshake frame's, and
     * leaves the flyweight on it.
     *
     * @param type   frame type.
     * @param header the header bytes.
     * @return null if it is a handshake frame with the right magic; else what is wrong, a protocol error.
     */
    String checkHeader(final int type, final ByteBuf header)
    {
        if (!FrameType.isHandshake(type))
        {
            return "expected a handshake, got a " + FrameType.name(type) + " frame";
        }
        handshake.wrap(header, 0);
        if (HandshakeFlyweight.MAGIC != handshake.magic())
        {
            return "bad handshake magic 0x" + Integer.toHexString(handshake.magic());
        }
        return null;
    }

    /** @return the initial sequence of the header {@link #checkHeader} last checked. */
    long initialSequence()
    {
        return handshake.initialSequence();
    }

    /** @return the flags of the header {@link #checkHeader} last checked. */
    int flags()
    {
        return handshake.flags();
    }

    private int heartbeatIntervalUs()
    {
        return (int)Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMicros(configuration.heartbeatIntervalNs()));
    }
}

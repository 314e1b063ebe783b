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
 * checks of a frame it receives: that it is a handshake frame with the right magic, and whether it may come now,
 * given this side's secret and the authentication so far ({@link TcpAuthenticator}).
 * <p>
 * It decides; the handshake acts (protocol errors, refusals, the state). One flyweight serves both directions:
 * after {@link #checkHeader} it stays on the received header for {@link #initialSequence()} and {@link #flags()}
 * until the next frame is encoded. Event loop only.
 */
final class TcpHandshakeFrames
{
    private final TcpConfiguration configuration;
    private final boolean clientSide;
    private final TcpAuthenticator auth;
    private final HandshakeFlyweight handshake = new HandshakeFlyweight();

    /**
     * @param configuration the device's configuration (the heartbeat interval a connect frame announces).
     * @param clientSide    true on the connecting side.
     * @param auth          this side of the authentication, whose phase decides which frame may come.
     */
    TcpHandshakeFrames(final TcpConfiguration configuration, final boolean clientSide, final TcpAuthenticator auth)
    {
        this.configuration = configuration;
        this.clientSide = clientSide;
        this.auth = auth;
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

    /**
     * Whether a handshake frame of this type bypasses or contradicts the authentication: such a frame is refused
     * as an authentication failure (logged, counted, the peer told why), not as a protocol error. Asked before
     * {@link #isExpected}.
     *
     * @param type frame type.
     * @return the reason for the refusal, or null if the frame does not touch the authentication.
     */
    String authRefusal(final int type)
    {
        if (clientSide)
        {
            switch (type)
            {
                case FrameType.AUTH_CHALLENGE:
                    if (!auth.isRequired())
                    {
                        return "the listener requires a cluster secret and this side has none (set " +
                            io.verbs4j.config.ClusterSecret.FILE_PROP_NAME + " or " +
                            io.verbs4j.config.ClusterSecret.SECRET_ENV_NAME + ")";
                    }
                    return null;
                case FrameType.CONNECT_ACCEPT:
                    if (!auth.isAuthenticated())
                    {
                        return "the listener accepted without proving the cluster secret";
                    }
                    return null;
                default:
                    return null;
            }
        }
        switch (type)
        {
            case FrameType.AUTH_HELLO:
                if (!auth.isRequired())
                {
                    return "the connector uses a cluster secret and this listener has none";
                }
                return null;
            case FrameType.CONNECT_REQUEST:
                if (!auth.isAuthenticated())
                {
                    return "this listener requires the cluster secret and the connector sent no proof of it";
                }
                return null;
            default:
                return null;
        }
    }

    /**
     * Which handshake frame may come now, given this side's role and the authentication so far; a frame that is
     * not is a protocol error (one that {@link #authRefusal} refuses never gets here).
     *
     * @param type frame type.
     * @return true if the frame may be handled.
     */
    boolean isExpected(final int type)
    {
        if (clientSide)
        {
            switch (type)
            {
                case FrameType.CONNECT_REJECT:
                case FrameType.CONNECT_ACCEPT:
                    return true;
                case FrameType.AUTH_CHALLENGE:
                    return auth.isAwaitingChallenge();
                default:
                    return false;
            }
        }
        switch (type)
        {
            case FrameType.AUTH_HELLO:
                return auth.isAwaitingHello();
            case FrameType.AUTH_RESPONSE:
            case FrameType.CONNECT_REJECT:
                return auth.isAwaitingResponse();
            case FrameType.CONNECT_REQUEST:
                return true;
            default:
                return false;
        }
    }

    private int heartbeatIntervalUs()
    {
        return (int)Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMicros(configuration.heartbeatIntervalNs()));
    }
}

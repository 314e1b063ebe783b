// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import io.netty.channel.unix.FileDescriptor;
import io.verbs4j.tcp.protocol.FrameType;

/**
 * Where each frame of one connection goes once its decoder has it ({@link TcpFrameDecoder.FrameListener}): before the
 * connection is established every frame to the {@link TcpHandshake}; after that requests to the {@link TcpResponder}
 * (target side), responses to the {@link TcpResponseHandler} (initiator side), DISCONNECT to the connection's life
 * cycle, HEARTBEAT nowhere (its arrival already counted as a sign of life); any other type is a protocol error.
 * <p>
 * Threading: wherever the decoder runs, with the connection's driver lock held (the event loop, or a thread polling a
 * completion queue). Allocation-free after the handshake.
 */
final class TcpFrameRouter implements TcpFrameDecoder.FrameListener
{
    /** What the router needs from its connection. */
    interface Connection
    {
        /** @return true once the handshake established the connection. */
        boolean isEstablished();

        /** @return true once the connection is closed or closing. */
        boolean isClosed();

        /** @return the socket for reading the rest of a large payload straight into place, or null. */
        FileDescriptor socketFd();

        /**
         * The peer broke the protocol: close the connection.
         *
         * @param reason what was wrong.
         */
        void protocolError(String reason);

        /** A DISCONNECT header came: the close that follows is the peer's orderly one, not a lost connection. */
        void onDisconnectHeader();

        /** A DISCONNECT frame ended: the queue pair goes to ERROR (flushing its work) and the connection closes. */
        void onDisconnect();
    }

    private final Connection connection;
    private TcpFrameDecoder decoder;
    private TcpHandshake handshake;
    private TcpResponder responder;
    private TcpResponseHandler responses;

    /**
     * @param connection the connection whose frames this routes.
     */
    TcpFrameRouter(final Connection connection)
    {
        this.connection = connection;
    }

    /**
     * The parts frames go to (they are created after the decoder, which needs this router first).
     *
     * @param decoder   the connection's decoder (payload modes, the handshake's small payloads).
     * @param handshake the connection's handshake.
     * @param responder the target side.
     * @param responses the initiator side's response handling.
     */
    void bind(
        final TcpFrameDecoder decoder,
        final TcpHandshake handshake,
        final TcpResponder responder,
        final TcpResponseHandler responses)
    {
        this.decoder = decoder;
        this.handshake = handshake;
        this.responder = responder;
        this.responses = responses;
    }

    /** {@inheritDoc} */
    public boolean onFrameHeader(
        final int type,
        final int flags,
        final int length,
        final long sequence,
        final long address,
        final int rkey,
        final int argument)
    {
        if (!connection.isEstablished())
        {
            if (!handshake.onHeader(type, decoder.header()))
            {
                return false;
            }
            decoder.payloadIntoSmall();
            return true;
        }
        if (FrameType.isRequest(type))
        {
            responder.onRequest(type, flags, length, sequence, address, rkey, argument);
        }
        else if (FrameType.isResponse(type))
        {
            responses.onResponse(type, length, sequence, address, argument);
        }
        else if (FrameType.DISCONNECT == type)
        {
            connection.onDisconnectHeader();
        }
        else if (FrameType.HEARTBEAT != type)
        {
            connection.protocolError("unexpected " + FrameType.name(type) + " frame on an established connection");
            return false;
        }
        return !connection.isClosed();
    }

    /** {@inheritDoc} */
    public void onFrameEnd(final int type)
    {
        if (!connection.isEstablished())
        {
            handshake.onFrameEnd(type, decoder.smallCopy());
            return;
        }
        if (FrameType.isRequest(type))
        {
            responder.onRequestEnd();
        }
        else if (FrameType.isResponse(type))
        {
            responses.onResponseEnd();
        }
        else if (FrameType.DISCONNECT == type)
        {
            connection.onDisconnect();
        }
    }

    /** {@inheritDoc} */
    public void onProtocolError(final String reason)
    {
        connection.protocolError(reason);
    }

    /** {@inheritDoc} */
    public boolean isClosed()
    {
        return connection.isClosed();
    }

    /** {@inheritDoc} */
    public FileDescriptor directReadFd()
    {
        return connection.socketFd();
    }
}

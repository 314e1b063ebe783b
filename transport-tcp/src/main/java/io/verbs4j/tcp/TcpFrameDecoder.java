// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.util.Arrays;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.unix.FileDescriptor;
import io.verbs4j.tcp.protocol.FrameFlyweight;
import io.verbs4j.tcp.protocol.FrameType;
import io.verbs4j.tcp.protocol.HandshakeFlyweight;

/**
 * The streaming frame decoder of a connection (Netty's codec half): a 32-byte header, checked (version, type,
 * payload length) and handed to a {@link FrameListener}, then the payload, which goes where the listener said while
 * it handled the header ({@link #payloadIntoSink()}, {@link #payloadIntoSmall()}, {@link #discardPayload()}) as it
 * arrives: nothing is accumulated, however long the message. Frames may be split or coalesced anyhow by the reads.
 * When a read is used up in the middle of a large payload bound for the sink, the rest is read from the socket
 * straight into the destination ({@link PayloadSink#readDirect}).
 * <p>
 * Threading: whoever holds the connection's driver lock and read the socket (the event loop's read, or a thread
 * polling a completion queue through {@link TcpReadOwnership}); no lock of its own. Allocation-free per frame.
 */
final class TcpFrameDecoder implements TcpReadOwnership.Decoder
{
    /** First byte of a TLS handshake record (a ClientHello from a peer that has TLS on). */
    private static final int TLS_HANDSHAKE_RECORD = 0x16;
    private static final int PAYLOAD_NONE = 0;
    private static final int PAYLOAD_SINK = 1;
    private static final int PAYLOAD_DISCARD = 2;
    private static final int PAYLOAD_SMALL = 3;

    /** What the decoder hands each frame to (the connection's channel handler). Driver lock held. */
    interface FrameListener
    {
        /**
         * A header arrived and passed the checks. Before returning, the listener says where the payload goes
         * (by default it is discarded).
         *
         * @param type          frame type ({@link FrameType}).
         * @param flags         flags field.
         * @param payloadLength payload bytes that follow.
         * @param sequence      sequence field.
         * @param address       address field.
         * @param rkey          rkey field.
         * @param argument      argument field.
         * @return false to stop decoding (the connection closed, or the frame was refused).
         */
        boolean onFrameHeader(int type, int flags, int payloadLength, long sequence, long address, int rkey,
            int argument);

        /**
         * The frame's payload has arrived in full (right after {@link #onFrameHeader} when it has none).
         *
         * @param type frame type.
         */
        void onFrameEnd(int type);

        /**
         * The peer broke the framing (version, type, length): the listener closes the connection.
         *
         * @param reason what was wrong.
         */
        void onProtocolError(String reason);

        /** @return true once the connection closed: decoding stops. */
        boolean isClosed();

        /** @return the socket for reading the rest of a large payload straight into place, or null. */
        FileDescriptor directReadFd();
    }

    private final FrameListener listener;
    private final TcpCounters counters;
    private final PayloadSink sink;
    private final boolean tlsOn;
    private final int directReadThreshold;
    private final FrameFlyweight frame = new FrameFlyweight();
    /**
     * The current header. Direct (Java-managed, freed with the decoder): the flyweight's field reads are then single
     * unsafe loads rather than byte-by-byte assembly from a heap array, and a frame's header is read a dozen times
     * between the decoder, the router and the responder.
     */
    private final ByteBuf header = Unpooled.wrappedBuffer(
        java.nio.ByteBuffer.allocateDirect(FrameFlyweight.HEADER_LENGTH));
    private final byte[] small = new byte[TcpConfiguration.MAX_PRIVATE_DATA_LENGTH];
    private boolean established;
    private long framesDecoded;

    private int headerFill;
    private long payloadRemaining;
    private int payloadMode;
    private int smallFill;
    private int frameType;
    private long receivedBytes;
    private long copiedBytes;
    private long discardedBytes;
    private long directReadBytes;

    /**
     * @param listener            where frames go.
     * @param counters            the device's counters.
     * @param sink                where payloads bound for registered memory go.
     * @param tlsOn               whether this side speaks TLS (a TLS record is then never seen here).
     * @param directReadThreshold payload bytes left from which the rest is read straight into place (0: never).
     */
    TcpFrameDecoder(
        final FrameListener listener,
        final TcpCounters counters,
        final PayloadSink sink,
        final boolean tlsOn,
        final int directReadThreshold)
    {
        this.listener = listener;
        this.counters = counters;
        this.sink = sink;
        this.tlsOn = tlsOn;
        this.directReadThreshold = directReadThreshold;
        frame.wrap(header, 0);
    }

    /** The handshake is over: verb frames follow, and their payload bytes are counted. Driver lock held. */
    void established()
    {
        established = true;
    }

    /** @return the sink that payloads bound for registered memory go into. */
    PayloadSink sink()
    {
        return sink;
    }

    /** @return frame headers decoded so far. */
    long framesDecoded()
    {
        return framesDecoded;
    }

    /** @return the current frame's header bytes (for the handshake's flyweight), valid in {@link FrameListener}. */
    ByteBuf header()
    {
        return header;
    }

    /**
     * Decodes what {@code in} holds (consuming it), as far as the connection stays open.
     *
     * @param in bytes read from the socket, in order.
     * @return false once the connection is closed (a reader stops reading).
     */
    public boolean decode(final ByteBuf in)
    {
        while (in.isReadable() && !listener.isClosed())
        {
            if (0 == payloadRemaining)
            {
                final int n = Math.min(FrameFlyweight.HEADER_LENGTH - headerFill, in.readableBytes());
                in.readBytes(header, headerFill, n);
                headerFill += n;
                if (headerFill < FrameFlyweight.HEADER_LENGTH)
                {
                    return !listener.isClosed();
                }
                headerFill = 0;
                framesDecoded++;
                counters.increment(TcpCounter.FRAMES_RECEIVED);
                payloadMode = PAYLOAD_NONE;
                if (!onHeader())
                {
                    return !listener.isClosed();
                }
                if (0 == payloadRemaining)
                {
                    onFrameEnd();
                }
            }
            else
            {
                final int n = (int)Math.min(payloadRemaining, in.readableBytes());
                switch (payloadMode)
                {
                    case PAYLOAD_SINK:
                        sink.write(in, n);
                        copiedBytes += n;
                        break;
                    case PAYLOAD_SMALL:
                        in.readBytes(small, smallFill, n);
                        smallFill += n;
                        break;
                    default:
                        in.skipBytes(n);
                        discardedBytes += n;
                        break;
                }
                if (established)
                {
                    receivedBytes += n;
                }
                payloadRemaining -= n;
                if (0 == payloadRemaining)
                {
                    onFrameEnd();
                }
            }
        }
        if (payloadRemaining > 0)
        {
            // The receive buffer is used up in the middle of a large payload: the rest the socket has now goes
            // straight into place; the next read picks up from there.
            continuePayloadDirect();
        }
        return !listener.isClosed();
    }

    /**
     * A reader that holds the driver lock, before it reads into a receive buffer: while a large payload is in
     * progress (at least {@code directReadThreshold} bytes of it left), reads what the socket has of it straight into
     * its destination. A payload that arrives over several reads is then copied by the kernel alone; read into a
     * receive buffer first, each continuation was copied once more (a third of a 1 MiB AllReduce's bytes).
     *
     * @return payload bytes read into place (0: the socket had none now), or -1 when no such payload is in progress
     *         or the read failed with nothing read (the caller's own read then reports the failure).
     */
    public long continuePayloadDirect()
    {
        if (0 == payloadRemaining || PAYLOAD_SINK != payloadMode || 0 == directReadThreshold ||
            payloadRemaining < directReadThreshold)
        {
            return -1;
        }
        final FileDescriptor fd = listener.directReadFd();
        if (null == fd || listener.isClosed())
        {
            return -1;
        }
        final long n = sink.readDirect(fd, payloadRemaining);
        if (n <= 0)
        {
            return n;
        }
        receivedBytes += n;
        directReadBytes += n;
        payloadRemaining -= n;
        if (0 == payloadRemaining)
        {
            onFrameEnd();
        }
        return n;
    }

    /** @return true while a frame's payload is only partly decoded. */
    public boolean inPayload()
    {
        return payloadRemaining > 0;
    }

    private boolean onHeader()
    {
        final int version = frame.version();
        if (TLS_HANDSHAKE_RECORD == version && !established && !tlsOn)
        {
            listener.onProtocolError("the peer speaks TLS and this side has TLS off (" +
                TcpConfiguration.TLS_PROP_NAME + ")");
            return false;
        }
        if (FrameFlyweight.CURRENT_VERSION != version)
        {
            listener.onProtocolError("unsupported protocol version " + version + " (this side speaks " +
                FrameFlyweight.CURRENT_VERSION + ")");
            return false;
        }
        final int type = frame.type();
        if (!FrameType.isValid(type))
        {
            listener.onProtocolError("unknown frame type " + type);
            return false;
        }
        final int length = frame.payloadLength();
        final String lengthError = checkPayloadLength(type, length);
        if (null != lengthError)
        {
            listener.onProtocolError(lengthError);
            return false;
        }
        frameType = type;
        payloadRemaining = length;
        return listener.onFrameHeader(type, frame.flags(), length, frame.sequence(), frame.address(), frame.rkey(),
            frame.argument());
    }

    static String checkPayloadLength(final int type, final int length)
    {
        if (length < 0)
        {
            return "impossible payload length " + length + " in a " + FrameType.name(type) + " frame";
        }
        switch (type)
        {
            case FrameType.ATOMIC_REQUEST:
                return FrameFlyweight.ATOMIC_OPERANDS_LENGTH == length ? null :
                    "ATOMIC_REQUEST with a payload of " + length + " bytes (must be " +
                    FrameFlyweight.ATOMIC_OPERANDS_LENGTH + ")";
            case FrameType.READ_REQUEST:
            case FrameType.ATOMIC_RESPONSE:
            case FrameType.ACK:
            case FrameType.NAK:
            case FrameType.RNR_NAK:
            case FrameType.DISCONNECT:
            case FrameType.HEARTBEAT:
                return 0 == length ? null : FrameType.name(type) + " with a payload of " + length +
                    " bytes (must be 0)";
            case FrameType.CONNECT_REQUEST:
            case FrameType.CONNECT_ACCEPT:
            case FrameType.CONNECT_REJECT:
                return length <= TcpConfiguration.MAX_PRIVATE_DATA_LENGTH ? null : FrameType.name(type) +
                    " with " + length + " bytes of private data (at most " +
                    TcpConfiguration.MAX_PRIVATE_DATA_LENGTH + ")";
            case FrameType.AUTH_HELLO:
                return exactLength(type, length, HandshakeFlyweight.AUTH_HELLO_LENGTH);
            case FrameType.AUTH_CHALLENGE:
                return exactLength(type, length, HandshakeFlyweight.AUTH_CHALLENGE_LENGTH);
            case FrameType.AUTH_RESPONSE:
                return exactLength(type, length, HandshakeFlyweight.AUTH_RESPONSE_LENGTH);
            default:
                return null;
        }
    }

    private static String exactLength(final int type, final int length, final int expected)
    {
        return expected == length ? null : FrameType.name(type) + " with a payload of " + length + " bytes (must be " +
            expected + ")";
    }

    private void onFrameEnd()
    {
        final int mode = payloadMode;
        payloadMode = PAYLOAD_NONE;
        if (PAYLOAD_SINK == mode)
        {
            sink.clear();
        }
        listener.onFrameEnd(frameType);
    }

    // ---------------------------------------------------------------- payload modes, set while handling a header

    /** The current frame's payload goes into the {@link #sink()} (set up by the listener). */
    void payloadIntoSink()
    {
        payloadMode = PAYLOAD_SINK;
    }

    /** The current frame's payload is dropped. */
    void discardPayload()
    {
        payloadMode = PAYLOAD_DISCARD;
    }

    /**
     * The current frame's payload (small: handshake data, atomic operands) is kept here ({@link #smallLong},
     * {@link #smallCopy()}).
     */
    void payloadIntoSmall()
    {
        payloadMode = PAYLOAD_SMALL;
        smallFill = 0;
    }

    /**
     * @param offset offset in the small payload.
     * @return the little-endian long there.
     */
    long smallLong(final int offset)
    {
        long value = 0;
        for (int i = 7; i >= 0; i--)
        {
            value = value << 8 | (small[offset + i] & 0xff);
        }
        return value;
    }

    /** @return a copy of the small payload received (allocates: the handshake's frames only). */
    byte[] smallCopy()
    {
        return Arrays.copyOf(small, smallFill);
    }

    /** @return bytes read since the last {@link #publishReceiveCounters()} (the read batch so far). */
    long batchBytes()
    {
        return receivedBytes;
    }

    /** Publishes the byte counts of what was read since the last call (end of a read batch). */
    void publishReceiveCounters()
    {
        if (receivedBytes > 0)
        {
            counters.add(TcpCounter.BYTES_RECEIVED, receivedBytes);
            counters.add(TcpCounter.BYTES_COPIED_ON_RECEIVE, copiedBytes);
            counters.add(TcpCounter.BYTES_DISCARDED, discardedBytes);
            counters.add(TcpCounter.BYTES_RECEIVED_DIRECT, directReadBytes);
            directReadBytes = 0;
            receivedBytes = 0;
            copiedBytes = 0;
            discardedBytes = 0;
        }
    }
}

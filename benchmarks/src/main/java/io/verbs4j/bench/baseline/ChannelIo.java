// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

import io.verbs4j.bench.spi.WaitLoop;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeoutException;

/**
 * {@link SocketChannel} helpers for the NIO baselines. In blocking mode a call never returns 0 bytes, so the
 * {@link WaitLoop} is only used by non-blocking channels, which poll. Allocation-free.
 */
final class ChannelIo
{
    private ChannelIo()
    {
    }

    /**
     * Fills {@code buffer} from position to limit.
     *
     * @param channel  the channel.
     * @param buffer   destination.
     * @param waitLoop idles between empty reads of a non-blocking channel.
     * @throws IOException      on failure or end of stream.
     * @throws TimeoutException if no byte arrived within the wait loop's timeout.
     */
    static void readFully(final SocketChannel channel, final ByteBuffer buffer, final WaitLoop waitLoop)
        throws IOException, TimeoutException
    {
        waitLoop.reset();
        while (buffer.hasRemaining())
        {
            final int read = channel.read(buffer);
            if (read < 0)
            {
                throw new EOFException("peer closed the connection with " + buffer.remaining() + " bytes outstanding");
            }
            if (0 == read)
            {
                waitLoop.idle();
            }
            else
            {
                waitLoop.reset();
            }
        }
    }

    /**
     * Writes {@code buffer} from position to limit.
     *
     * @param channel  the channel.
     * @param buffer   source.
     * @param waitLoop idles while a non-blocking channel's send buffer is full.
     * @throws IOException      on failure.
     * @throws TimeoutException if the peer stopped reading for longer than the wait loop's timeout.
     */
    static void writeFully(final SocketChannel channel, final ByteBuffer buffer, final WaitLoop waitLoop)
        throws IOException, TimeoutException
    {
        waitLoop.reset();
        while (buffer.hasRemaining())
        {
            if (0 == channel.write(buffer))
            {
                waitLoop.idle();
            }
            else
            {
                waitLoop.reset();
            }
        }
    }

    /**
     * Reads and discards {@code total} bytes through {@code scratch}.
     *
     * @param channel  the channel.
     * @param scratch  scratch buffer; its position and limit are changed.
     * @param total    bytes to consume.
     * @param waitLoop idles between empty reads of a non-blocking channel.
     * @throws IOException      on failure or end of stream.
     * @throws TimeoutException if no byte arrived within the wait loop's timeout.
     */
    static void drain(final SocketChannel channel, final ByteBuffer scratch, final long total, final WaitLoop waitLoop)
        throws IOException, TimeoutException
    {
        long remaining = total;
        while (remaining > 0)
        {
            scratch.clear().limit((int)Math.min(scratch.capacity(), remaining));
            readFully(channel, scratch, waitLoop);
            remaining -= scratch.limit();
        }
    }
}

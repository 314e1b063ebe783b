// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/**
 * Blocking-stream helpers for the {@code java.net.Socket} baseline. Allocation-free.
 */
final class StreamIo
{
    private StreamIo()
    {
    }

    /**
     * Reads exactly {@code length} bytes.
     *
     * @param in     the stream.
     * @param buffer destination.
     * @param length bytes to read, at most {@code buffer.length}.
     * @throws IOException  on failure.
     * @throws EOFException if the stream ends first.
     */
    static void readFully(final InputStream in, final byte[] buffer, final int length) throws IOException
    {
        int done = 0;
        while (done < length)
        {
            final int read = in.read(buffer, done, length - done);
            if (read < 0)
            {
                throw new EOFException("peer closed the connection after " + done + " of " + length + " bytes");
            }
            done += read;
        }
    }

    /**
     * Reads {@code total} bytes through a buffer, discarding them.
     *
     * @param in     the stream.
     * @param buffer scratch buffer.
     * @param total  bytes to consume.
     * @throws IOException on failure or early end of stream.
     */
    static void drain(final InputStream in, final byte[] buffer, final long total) throws IOException
    {
        long remaining = total;
        while (remaining > 0)
        {
            final int read = in.read(buffer, 0, (int)Math.min(buffer.length, remaining));
            if (read < 0)
            {
                throw new EOFException("peer closed the connection with " + remaining + " bytes outstanding");
            }
            remaining -= read;
        }
    }

    /**
     * Encodes a long big-endian into {@code buffer[0..8)}.
     *
     * @param buffer destination, at least 8 bytes.
     * @param value  the value.
     */
    static void putLong(final byte[] buffer, final long value)
    {
        for (int i = 0; i < Long.BYTES; i++)
        {
            buffer[i] = (byte)(value >>> (56 - 8 * i));
        }
    }

    /**
     * Decodes a big-endian long from {@code buffer[0..8)}.
     *
     * @param buffer source, at least 8 bytes.
     * @return the value.
     */
    static long getLong(final byte[] buffer)
    {
        long value = 0;
        for (int i = 0; i < Long.BYTES; i++)
        {
            value = (value << 8) | (buffer[i] & 0xFF);
        }
        return value;
    }
}

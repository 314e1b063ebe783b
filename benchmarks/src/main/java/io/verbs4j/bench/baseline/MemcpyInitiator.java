// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

import io.verbs4j.bench.spi.StreamInitiator;
import org.agrona.UnsafeApi;

/**
 * The {@code memcpy} "stream": each message is one {@code Unsafe.copyMemory} from source to destination.
 */
final class MemcpyInitiator implements StreamInitiator
{
    private final OffHeapBuffer source;
    private final OffHeapBuffer destination;

    MemcpyInitiator(final int messageBytes)
    {
        this.source = new OffHeapBuffer(messageBytes);
        this.destination = new OffHeapBuffer(messageBytes);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void sendWindow(final int messages)
    {
        final long from = source.address();
        final long to = destination.address();
        final int length = source.length();
        for (int i = 0; i < messages; i++)
        {
            UnsafeApi.copyMemory(from, to, length);
        }
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void close()
    {
        // Off-heap buffers are released with their ByteBuffers by the garbage collector.
    }
}

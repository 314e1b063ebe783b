// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

import io.verbs4j.bench.spi.SessionSpec;
import io.verbs4j.bench.spi.StreamInitiator;
import io.verbs4j.bench.spi.WaitLoop;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;

import java.util.concurrent.TimeoutException;

/**
 * Initiator of {@code shm-memcpy}: writes each message from a private buffer into the ring (waiting while the ring is
 * full); a window ends when the consumer's position has caught up with the producer's.
 */
final class ShmRingProducer implements StreamInitiator
{
    /** Type of every record; the consumer does not look at it. */
    private static final int MESSAGE_TYPE = 1;

    private final MappedFile file;
    private final OneToOneRingBuffer ring;
    private final UnsafeBuffer source;
    private final int length;
    private final WaitLoop waitLoop;

    ShmRingProducer(final SessionSpec spec, final MappedFile file)
    {
        this.file = file;
        this.ring = new OneToOneRingBuffer(new UnsafeBuffer(file.address(),
            (int)ShmRingLayout.fileLength(spec.messageBytes())));
        this.source = new OffHeapBuffer(spec.messageBytes()).view();
        this.length = spec.messageBytes();
        this.waitLoop = WaitLoop.forSession(spec);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void sendWindow(final int messages) throws TimeoutException
    {
        for (int i = 0; i < messages; i++)
        {
            if (!ring.write(MESSAGE_TYPE, source, 0, length))
            {
                waitLoop.reset();
                do
                {
                    waitLoop.idle();
                }
                while (!ring.write(MESSAGE_TYPE, source, 0, length));
            }
        }
        waitLoop.reset();
        while (ring.consumerPosition() != ring.producerPosition())
        {
            waitLoop.idle();
        }
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void close()
    {
        file.close();
    }
}

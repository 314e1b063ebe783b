// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

import io.verbs4j.bench.spi.Responder;
import io.verbs4j.bench.spi.SessionSpec;
import io.verbs4j.bench.spi.WaitLoop;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;

import java.util.concurrent.TimeoutException;

/**
 * Responder of {@code shm-memcpy}: reads every message from the ring and copies it into a private buffer (Agrona's
 * read also zeroes the consumed records), for {@link SessionSpec#totalIterations()} messages.
 */
final class ShmRingConsumer implements Responder
{
    private final SessionSpec spec;
    private final MappedFile file;
    private final OneToOneRingBuffer ring;
    private final WaitLoop waitLoop;
    private final ServeGuard guard;

    ShmRingConsumer(final SessionSpec spec, final MappedFile file)
    {
        this.spec = spec;
        this.file = file;
        this.ring = new OneToOneRingBuffer(new UnsafeBuffer(file.address(),
            (int)ShmRingLayout.fileLength(spec.messageBytes())));
        this.waitLoop = WaitLoop.forSession(spec);
        this.guard = new ServeGuard(waitLoop);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String endpoint()
    {
        return file.path().toString();
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void serve() throws TimeoutException
    {
        guard.enter();
        try
        {
            consume();
        }
        finally
        {
            guard.exit();
        }
    }

    private void consume() throws TimeoutException
    {
        final UnsafeBuffer copy = new OffHeapBuffer(spec.messageBytes()).view();
        final MessageHandler handler = (msgTypeId, buffer, index, length) -> copy.putBytes(0, buffer, index, length);
        for (long consumed = 0, total = spec.totalIterations(); consumed < total; )
        {
            final int read = ring.read(handler, (int)Math.min(Integer.MAX_VALUE, total - consumed));
            if (0 == read)
            {
                waitLoop.idle();
            }
            else
            {
                waitLoop.reset();
                consumed += read;
            }
        }
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void close()
    {
        if (guard.closeAndAwait())
        {
            file.close();
        }
    }
}

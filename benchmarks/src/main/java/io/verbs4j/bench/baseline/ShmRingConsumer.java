// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

import io.verbs4j.bench.spi.Responder;
import io.verbs4j.bench.spi.SessionSpec;
import io.verbs4j.bench.spi.WaitLoop;
import org.agrona.UnsafeApi;

import java.util.concurrent.TimeoutException;

/**
 * Responder of {@code shm-memcpy}: copies every message out of its slot into a private buffer and releases
 * CONSUMED, for {@link SessionSpec#totalIterations()} messages.
 */
final class ShmRingConsumer implements Responder
{
    private final SessionSpec spec;
    private final MappedFile file;
    private final WaitLoop waitLoop;
    private final ServeGuard guard;

    ShmRingConsumer(final SessionSpec spec, final MappedFile file)
    {
        this.spec = spec;
        this.file = file;
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
        final OffHeapBuffer destination = new OffHeapBuffer(spec.messageBytes());
        final long producedAddress = file.address() + ShmRingLayout.PRODUCED_OFFSET;
        final long consumedAddress = file.address() + ShmRingLayout.CONSUMED_OFFSET;
        final long dataAddress = file.address() + ShmRingLayout.DATA_OFFSET;
        final long slotLength = ShmRingLayout.slotLength(spec.messageBytes());
        final int slotCount = ShmRingLayout.slotCount(spec.messageBytes());
        final int length = destination.length();
        long producedSeen = 0;
        for (long consumed = 0, total = spec.totalIterations(); consumed < total; )
        {
            if (producedSeen == consumed)
            {
                waitLoop.reset();
                while ((producedSeen = UnsafeApi.getLongVolatile(null, producedAddress)) == consumed)
                {
                    waitLoop.idle();
                }
            }
            UnsafeApi.copyMemory(dataAddress + (consumed % slotCount) * slotLength, destination.address(), length);
            UnsafeApi.putLongRelease(null, consumedAddress, ++consumed);
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

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

import io.verbs4j.bench.spi.SessionSpec;
import io.verbs4j.bench.spi.StreamInitiator;
import io.verbs4j.bench.spi.WaitLoop;
import org.agrona.UnsafeApi;

import java.util.concurrent.TimeoutException;

/**
 * Initiator of {@code shm-memcpy}: copies each message into the next free slot and releases PRODUCED; a window
 * ends when CONSUMED has caught up.
 */
final class ShmRingProducer implements StreamInitiator
{
    private final MappedFile file;
    private final OffHeapBuffer source;
    private final long producedAddress;
    private final long consumedAddress;
    private final long dataAddress;
    private final long slotLength;
    private final int slotCount;
    private final WaitLoop waitLoop;
    private long produced;
    private long consumedSeen;

    ShmRingProducer(final SessionSpec spec, final MappedFile file)
    {
        this.file = file;
        this.source = new OffHeapBuffer(spec.messageBytes());
        this.producedAddress = file.address() + ShmRingLayout.PRODUCED_OFFSET;
        this.consumedAddress = file.address() + ShmRingLayout.CONSUMED_OFFSET;
        this.dataAddress = file.address() + ShmRingLayout.DATA_OFFSET;
        this.slotLength = ShmRingLayout.slotLength(spec.messageBytes());
        this.slotCount = ShmRingLayout.slotCount(spec.messageBytes());
        this.waitLoop = WaitLoop.forSession(spec);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void sendWindow(final int messages) throws TimeoutException
    {
        final int length = source.length();
        for (int i = 0; i < messages; i++)
        {
            if (produced - consumedSeen >= slotCount)
            {
                waitLoop.reset();
                while (produced - (consumedSeen = UnsafeApi.getLongVolatile(null, consumedAddress)) >= slotCount)
                {
                    waitLoop.idle();
                }
            }
            UnsafeApi.copyMemory(source.address(), dataAddress + (produced % slotCount) * slotLength, length);
            UnsafeApi.putLongRelease(null, producedAddress, ++produced);
        }
        waitLoop.reset();
        while ((consumedSeen = UnsafeApi.getLongVolatile(null, consumedAddress)) != produced)
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

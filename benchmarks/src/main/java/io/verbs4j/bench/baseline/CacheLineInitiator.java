// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

import io.verbs4j.bench.spi.PingPongInitiator;
import io.verbs4j.bench.spi.SessionSpec;
import io.verbs4j.bench.spi.WaitLoop;
import org.agrona.UnsafeApi;

import java.util.concurrent.TimeoutException;

/**
 * Initiator of {@code shm-cacheline}: stores the next sequence number to PING, waits for it in PONG.
 */
final class CacheLineInitiator implements PingPongInitiator
{
    private final MappedFile file;
    private final long ping;
    private final long pong;
    private final WaitLoop waitLoop;
    private long seq;

    CacheLineInitiator(final SessionSpec spec, final MappedFile file)
    {
        this.file = file;
        this.ping = file.address() + CacheLineLayout.PING_OFFSET;
        this.pong = file.address() + CacheLineLayout.PONG_OFFSET;
        this.waitLoop = WaitLoop.forSession(spec);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void roundTrip() throws TimeoutException
    {
        final long next = ++seq;
        UnsafeApi.putLongRelease(null, ping, next);
        waitLoop.reset();
        while (UnsafeApi.getLongVolatile(null, pong) != next)
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

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

import io.verbs4j.bench.spi.Responder;
import io.verbs4j.bench.spi.SessionSpec;
import io.verbs4j.bench.spi.WaitLoop;
import org.agrona.UnsafeApi;

import java.util.concurrent.TimeoutException;

/**
 * Responder of {@code shm-cacheline}: for each {@code i} in 1..total waits until PING is {@code i}, then stores
 * {@code i} to PONG.
 */
final class CacheLineResponder implements Responder
{
    private final SessionSpec spec;
    private final MappedFile file;
    private final WaitLoop waitLoop;
    private final ServeGuard guard;

    CacheLineResponder(final SessionSpec spec, final MappedFile file)
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
            echo();
        }
        finally
        {
            guard.exit();
        }
    }

    private void echo() throws TimeoutException
    {
        final long ping = file.address() + CacheLineLayout.PING_OFFSET;
        final long pong = file.address() + CacheLineLayout.PONG_OFFSET;
        for (long seq = 1, total = spec.totalIterations(); seq <= total; seq++)
        {
            waitLoop.reset();
            while (UnsafeApi.getLongVolatile(null, ping) != seq)
            {
                waitLoop.idle();
            }
            UnsafeApi.putLongRelease(null, pong, seq);
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

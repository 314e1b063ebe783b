// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.rendezvous;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A store for ranks that are threads of one JVM (Gloo's HashStore). Waiters block on a condition, no polling.
 *
 * <p>Several threads share one instance. {@link #close()} wakes all waiters, which then fail with
 * {@link IllegalStateException}.
 */
public final class InMemoryStore implements RendezvousStore
{
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Map<String, byte[]> values = new HashMap<>();
    private boolean closed;

    /** Creates an empty store. */
    public InMemoryStore()
    {
    }

    /** {@inheritDoc} */
    @Override
    public void set(final String key, final byte[] value)
    {
        StoreArguments.key(key);
        final byte[] copy = StoreArguments.value(value).clone();
        lock.lock();
        try
        {
            ensureOpen();
            values.put(key, copy);
            changed.signalAll();
        }
        finally
        {
            lock.unlock();
        }
    }

    /** {@inheritDoc} */
    @Override
    public byte[] get(final String key, final Duration timeout)
    {
        waitFor(List.of(StoreArguments.key(key)), timeout);
        lock.lock();
        try
        {
            ensureOpen();
            final byte[] value = values.get(key);
            if (null == value)
            {
                // Deleted between the wait and this read; report it the way a wait that never saw it would.
                throw new RendezvousTimeoutException(List.of(key), timeout);
            }
            return value.clone();
        }
        finally
        {
            lock.unlock();
        }
    }

    /** {@inheritDoc} */
    @Override
    public void waitFor(final Collection<String> keys, final Duration timeout)
    {
        StoreArguments.keys(keys);
        StoreArguments.timeout(timeout);
        final long deadlineNs = System.nanoTime() + StoreArguments.timeoutNs(timeout);
        lock.lock();
        try
        {
            while (true)
            {
                ensureOpen();
                final List<String> missing = missing(keys);
                if (missing.isEmpty())
                {
                    return;
                }
                final long remainingNs = deadlineNs - System.nanoTime();
                if (remainingNs <= 0)
                {
                    throw new RendezvousTimeoutException(missing, timeout);
                }
                changed.await(remainingNs, TimeUnit.NANOSECONDS);
            }
        }
        catch (final InterruptedException ex)
        {
            throw StoreArguments.interrupted("waiting for keys " + keys, ex);
        }
        finally
        {
            lock.unlock();
        }
    }

    /** {@inheritDoc} */
    @Override
    public long add(final String key, final long delta)
    {
        StoreArguments.key(key);
        lock.lock();
        try
        {
            ensureOpen();
            final byte[] current = values.get(key);
            final long updated = (null == current ? 0 : StoreArguments.decodeCounter(key, current)) + delta;
            values.put(key, StoreArguments.encodeCounter(updated));
            changed.signalAll();
            return updated;
        }
        finally
        {
            lock.unlock();
        }
    }

    /** {@inheritDoc} */
    @Override
    public boolean check(final Collection<String> keys)
    {
        StoreArguments.keys(keys);
        lock.lock();
        try
        {
            ensureOpen();
            return missing(keys).isEmpty();
        }
        finally
        {
            lock.unlock();
        }
    }

    /** {@inheritDoc} */
    @Override
    public boolean delete(final String key)
    {
        StoreArguments.key(key);
        lock.lock();
        try
        {
            ensureOpen();
            return null != values.remove(key);
        }
        finally
        {
            lock.unlock();
        }
    }

    /** {@inheritDoc} */
    @Override
    public void close()
    {
        lock.lock();
        try
        {
            closed = true;
            changed.signalAll();
        }
        finally
        {
            lock.unlock();
        }
    }

    private List<String> missing(final Collection<String> keys)
    {
        final List<String> missing = new ArrayList<>();
        for (final String key : keys)
        {
            if (!values.containsKey(key))
            {
                missing.add(key);
            }
        }
        return missing;
    }

    private void ensureOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("rendezvous store is closed");
        }
    }
}

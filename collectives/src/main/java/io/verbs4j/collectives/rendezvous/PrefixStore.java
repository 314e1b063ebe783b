// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.rendezvous;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * A view of another store in which every key is prefixed with {@code prefix + "/"}, so several communicators (or
 * several rounds of one) can share a backend without their keys colliding (Gloo's PrefixStore).
 *
 * <p>Timeout exceptions name the keys as the caller wrote them, without the prefix. Closing a PrefixStore does not
 * close the store it wraps: the wrapped store usually outlives many views.
 */
public final class PrefixStore implements RendezvousStore
{
    private final String prefix;
    private final RendezvousStore delegate;
    private volatile boolean closed;

    /**
     * Creates a namespaced view.
     *
     * @param prefix   the namespace, non-empty; a "/" separator is added after it.
     * @param delegate the store to wrap.
     */
    public PrefixStore(final String prefix, final RendezvousStore delegate)
    {
        if (null == prefix || prefix.isEmpty())
        {
            throw new IllegalArgumentException("prefix must be a non-empty string, e.g. the communicator's name");
        }
        if (null == delegate)
        {
            throw new IllegalArgumentException("delegate store must not be null");
        }
        this.prefix = prefix + "/";
        this.delegate = delegate;
    }

    /** {@inheritDoc} */
    @Override
    public void set(final String key, final byte[] value)
    {
        delegate.set(full(key), value);
    }

    /** {@inheritDoc} */
    @Override
    public byte[] get(final String key, final Duration timeout)
    {
        try
        {
            return delegate.get(full(key), timeout);
        }
        catch (final RendezvousTimeoutException ex)
        {
            throw unprefixed(ex, timeout);
        }
    }

    /** {@inheritDoc} */
    @Override
    public void waitFor(final Collection<String> keys, final Duration timeout)
    {
        try
        {
            delegate.waitFor(full(keys), timeout);
        }
        catch (final RendezvousTimeoutException ex)
        {
            throw unprefixed(ex, timeout);
        }
    }

    /** {@inheritDoc} */
    @Override
    public long add(final String key, final long delta)
    {
        return delegate.add(full(key), delta);
    }

    /** {@inheritDoc} */
    @Override
    public boolean check(final Collection<String> keys)
    {
        return delegate.check(full(keys));
    }

    /** {@inheritDoc} */
    @Override
    public boolean delete(final String key)
    {
        return delegate.delete(full(key));
    }

    /** Marks this view closed; the wrapped store stays open. */
    @Override
    public void close()
    {
        closed = true;
    }

    private String full(final String key)
    {
        if (closed)
        {
            throw new IllegalStateException("PrefixStore " + prefix + " is closed");
        }
        return prefix + StoreArguments.key(key);
    }

    private List<String> full(final Collection<String> keys)
    {
        final List<String> prefixed = new ArrayList<>();
        for (final String key : StoreArguments.keys(keys))
        {
            prefixed.add(full(key));
        }
        return prefixed;
    }

    private RendezvousTimeoutException unprefixed(final RendezvousTimeoutException ex, final Duration timeout)
    {
        final List<String> keys = new ArrayList<>();
        for (final String key : ex.missingKeys())
        {
            keys.add(key.startsWith(prefix) ? key.substring(prefix.length()) : key);
        }
        final RendezvousTimeoutException translated = new RendezvousTimeoutException(keys, timeout);
        translated.initCause(ex);
        return translated;
    }
}

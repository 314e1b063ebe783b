// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.rendezvous;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link AddressExchange} over a {@link RendezvousStore}.
 *
 * <p>Exchange number k uses keys {@code exchange/k/<rank>}. After reading everything, each rank increments
 * {@code exchange/k/done}; the rank that brings it to {@code size} deletes the round's keys, so repeated exchanges
 * do not grow the store. Each rank needs its own instance (the round counter is per instance), all over the same
 * store or the same prefix of it.
 */
public final class StoreExchange implements AddressExchange
{
    private final RendezvousStore store;
    private long round;

    /**
     * Creates an exchange over a store.
     *
     * @param store the shared store (use a {@link PrefixStore} to separate groups).
     */
    public StoreExchange(final RendezvousStore store)
    {
        if (null == store)
        {
            throw new IllegalArgumentException("store must not be null");
        }
        this.store = store;
    }

    /** {@inheritDoc} */
    @Override
    public synchronized byte[][] allGather(final int rank, final int size, final byte[] mine, final Duration timeout)
    {
        if (size < 1 || rank < 0 || rank >= size)
        {
            throw new IllegalArgumentException("rank " + rank + " and size " + size + " must satisfy 0 <= rank < size");
        }
        StoreArguments.value(mine);
        StoreArguments.timeout(timeout);
        final String base = "exchange/" + round++ + "/";
        store.set(base + rank, mine);

        final List<String> keys = new ArrayList<>(size);
        for (int r = 0; r < size; r++)
        {
            keys.add(base + r);
        }
        try
        {
            store.waitFor(keys, timeout);
        }
        catch (final RendezvousTimeoutException ex)
        {
            throw ranksMissing(rank, size, base, ex, timeout);
        }
        final byte[][] all = new byte[size][];
        for (int r = 0; r < size; r++)
        {
            all[r] = r == rank ? mine.clone() : store.get(keys.get(r), timeout);
        }

        // The last rank to finish reading removes the round, so nobody can still need it.
        if (store.add(base + "done", 1) == size)
        {
            for (final String key : keys)
            {
                store.delete(key);
            }
            store.delete(base + "done");
        }
        return all;
    }

    /** The store names keys; a user started ranks: say which ranks never joined. */
    private static RendezvousTimeoutException ranksMissing(final int rank, final int size, final String base,
        final RendezvousTimeoutException ex, final Duration timeout)
    {
        final List<Integer> ranks = new ArrayList<>();
        for (final String key : ex.missingKeys())
        {
            if (key.startsWith(base))
            {
                try
                {
                    ranks.add(Integer.parseInt(key.substring(base.length())));
                }
                catch (final NumberFormatException ignore)
                {
                    // not a rank key
                }
            }
        }
        if (ranks.isEmpty())
        {
            return ex;
        }
        return new RendezvousTimeoutException("rank " + rank + " of " + size + ": rank" +
            (ranks.size() > 1 ? "s " : " ") + ranks + (ranks.size() > 1 ? " have" : " has") + " not joined the " +
            "rendezvous within " + timeout.toMillis() + " ms (" + (size - ranks.size()) + " of " + size +
            " ranks joined; missing keys " + ex.missingKeys() + "). Check that every rank was started, that all use " +
            "the same store and world size, and that the timeout covers the slowest rank's start-up.",
            ex.missingKeys());
    }
}

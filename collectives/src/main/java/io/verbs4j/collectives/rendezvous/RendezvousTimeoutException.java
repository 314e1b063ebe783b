// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.rendezvous;

import java.time.Duration;
import java.util.Collection;
import java.util.List;

/** Keys a rank waited for did not appear within the timeout; {@link #missingKeys()} names them. */
public class RendezvousTimeoutException extends RendezvousException
{
    private static final long serialVersionUID = 1L;

    /** The keys that did not appear in time. */
    private final List<String> missingKeys;

    /**
     * Creates the exception.
     *
     * @param missingKeys the keys that were still absent when the wait gave up.
     * @param timeout     how long the caller waited.
     */
    public RendezvousTimeoutException(final Collection<String> missingKeys, final Duration timeout)
    {
        super("timed out after " + timeout.toMillis() + " ms waiting for rendezvous key(s) " + missingKeys +
            "; check that every rank started, uses the same store and world size, and that the timeout is long enough");
        this.missingKeys = List.copyOf(missingKeys);
    }

    /**
     * Creates the exception with a message that says more than the keys (e.g. which ranks never joined).
     *
     * @param message     what was waited for and what to check.
     * @param missingKeys the keys that were still absent when the wait gave up.
     */
    public RendezvousTimeoutException(final String message, final Collection<String> missingKeys)
    {
        super(message);
        this.missingKeys = List.copyOf(missingKeys);
    }

    /**
     * The keys that were missing.
     *
     * @return an unmodifiable list of keys.
     */
    public List<String> missingKeys()
    {
        return missingKeys;
    }
}

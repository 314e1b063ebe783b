// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.rendezvous;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;

/** Argument checks and the counter encoding shared by every store, so all stores reject the same inputs. */
final class StoreArguments
{
    private StoreArguments()
    {
    }

    static String key(final String key)
    {
        if (null == key || key.isEmpty())
        {
            throw new IllegalArgumentException("rendezvous key must be a non-empty string but was " +
                (null == key ? "null" : "empty"));
        }
        if (key.indexOf('\0') >= 0)
        {
            throw new IllegalArgumentException("rendezvous key must not contain NUL characters: " + key);
        }
        final int length = key.getBytes(StandardCharsets.UTF_8).length;
        if (length > RendezvousStore.MAX_KEY_LENGTH)
        {
            throw new IllegalArgumentException("rendezvous key is " + length + " UTF-8 bytes, more than the maximum " +
                RendezvousStore.MAX_KEY_LENGTH + "; use shorter keys");
        }
        return key;
    }

    static Collection<String> keys(final Collection<String> keys)
    {
        if (null == keys || keys.isEmpty())
        {
            throw new IllegalArgumentException("keys must be a non-empty collection");
        }
        for (final String key : keys)
        {
            key(key);
        }
        return keys;
    }

    static byte[] value(final byte[] value)
    {
        if (null == value)
        {
            throw new IllegalArgumentException("rendezvous value must not be null; use an empty array");
        }
        return value;
    }

    static Duration timeout(final Duration timeout)
    {
        if (null == timeout || timeout.isNegative() || timeout.isZero())
        {
            throw new IllegalArgumentException("timeout must be positive but was " + timeout);
        }
        return timeout;
    }

    static long decodeCounter(final String key, final byte[] value)
    {
        try
        {
            return Long.parseLong(new String(value, StandardCharsets.US_ASCII));
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("key " + key + " holds a value that is not a counter (decimal long); " +
                "use a different key for add()", ex);
        }
    }

    static byte[] encodeCounter(final long value)
    {
        return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
    }

    static long timeoutNs(final Duration timeout)
    {
        try
        {
            return timeout.toNanos();
        }
        catch (final ArithmeticException ex)
        {
            return Long.MAX_VALUE / 2; // centuries: effectively forever, and deadline arithmetic cannot overflow
        }
    }

    static RendezvousException interrupted(final String what, final InterruptedException ex)
    {
        Thread.currentThread().interrupt();
        return new RendezvousException("interrupted while " + what, ex);
    }
}

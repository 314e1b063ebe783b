// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

/**
 * Quiet closing for session teardown, where a failure to close must not hide the failure that caused it.
 */
final class Closer
{
    private Closer()
    {
    }

    /**
     * Closes {@code closeable} if non-null, ignoring any exception.
     *
     * @param closeable what to close, may be {@code null}.
     */
    static void closeQuietly(final AutoCloseable closeable)
    {
        if (null != closeable)
        {
            try
            {
                closeable.close();
            }
            catch (final Exception ignore)
            {
                // Teardown: the session's own outcome is what matters.
            }
        }
    }
}

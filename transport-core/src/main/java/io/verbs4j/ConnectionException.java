// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j;

/**
 * Connecting or accepting failed: refused, rejected, timed out, the peer went away, or the endpoint is malformed.
 */
public class ConnectionException extends VerbsException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong.
     */
    public ConnectionException(final String message)
    {
        super(message);
    }

    /**
     * @param message what went wrong.
     * @param cause   the underlying failure.
     */
    public ConnectionException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}

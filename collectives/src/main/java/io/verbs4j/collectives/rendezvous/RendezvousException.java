// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.rendezvous;

/** A rendezvous store could not do what was asked: unreachable, I/O failure, protocol error or interruption. */
public class RendezvousException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /**
     * Creates an exception with a message saying what failed.
     *
     * @param message what failed and, where known, what to do about it.
     */
    public RendezvousException(final String message)
    {
        super(message);
    }

    /**
     * Creates an exception with a message and the underlying cause.
     *
     * @param message what failed.
     * @param cause   the underlying failure.
     */
    public RendezvousException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}

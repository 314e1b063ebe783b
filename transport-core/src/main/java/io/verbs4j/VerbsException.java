// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j;

/**
 * A failure on the setup path (opening devices, allocating memory, creating objects). Data-path failures are never
 * exceptions: they are post return codes and {@link WcStatus} completions.
 */
public class VerbsException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong and what to do about it.
     */
    public VerbsException(final String message)
    {
        super(message);
    }

    /**
     * @param message what went wrong and what to do about it.
     * @param cause   the underlying failure.
     */
    public VerbsException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}

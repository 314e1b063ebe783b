// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j;

/**
 * A checked access through a {@link RemoteMemory} view was refused; nothing was read or written. {@link #status()}
 * is the work-completion status the same one-sided verb would have completed with: {@link WcStatus#REM_ACCESS_ERR}
 * for a deregistered region, a missing access bit or a range out of bounds; {@link WcStatus#RETRY_EXC_ERR} when
 * the owner died or disconnected; {@link WcStatus#WR_FLUSH_ERR} when the view was closed.
 */
public final class RemoteAccessException extends VerbsException
{
    private static final long serialVersionUID = 1L;

    /** The verbs status ({@link WcStatus}) of the refused access. */
    private final int status;

    /**
     * @param status  a {@link WcStatus} code.
     * @param message what was refused and why.
     */
    public RemoteAccessException(final int status, final String message)
    {
        super(message + " (" + WcStatus.name(status) + ")");
        this.status = status;
    }

    /** @return the {@link WcStatus} code. */
    public int status()
    {
        return status;
    }
}

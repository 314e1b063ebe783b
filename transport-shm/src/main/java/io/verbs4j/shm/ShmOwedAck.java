// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The acknowledgement this side owes its peer (the next MSN it expects on the peer's ring), for the inline SENDs it
 * writes to carry ({@code FrameDescriptor.FLAG_ACK}). The control block gets the same value in the same receive
 * round, first; a record only lets the peer take it without reading the control block (see {@link ShmAckWatch}).
 * <p>
 * Threading: {@link #taken} inside the device's progress, at the end of the queue pair's receive round, after the
 * round's receives are complete and the control block is written (release: a record that carries the value follows
 * both); {@link #toCarry} by the holder of its send-side lock (acquire). {@link #reset} on the setup path only.
 */
final class ShmOwedAck
{
    private static final VarHandle TAKEN;

    static
    {
        try
        {
            TAKEN = MethodHandles.lookup().findVarHandle(ShmOwedAck.class, "taken", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    @SuppressWarnings("unused")
    private volatile long taken;

    /** For a new connection (setup path, nothing running): nothing taken. */
    void reset()
    {
        TAKEN.setVolatile(this, 0L);
    }

    /**
     * Receive side: everything below {@code expectedMsn} is taken, complete and acknowledged on the control block.
     *
     * @param expectedMsn the next MSN expected from the peer (never less than an earlier call's).
     */
    void taken(final long expectedMsn)
    {
        if ((long)TAKEN.getOpaque(this) != expectedMsn)
        {
            TAKEN.setRelease(this, expectedMsn);
        }
    }

    /** @return the acknowledgement a record written now carries (send side). */
    long toCarry()
    {
        return (long)TAKEN.getAcquire(this);
    }
}

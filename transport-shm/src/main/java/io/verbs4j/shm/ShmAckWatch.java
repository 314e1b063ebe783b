// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

/**
 * Decides when the send side reads the peer's acknowledgement line (the second line of the peer's control block,
 * which the peer writes in every receive round that took records).
 * <p>
 * Reading that line while waiting leaves a copy of it in this core's cache. The peer's next store to it must then
 * take the line back first, and x86 makes the peer's later stores visible only after it: its answer's record crosses
 * after that round trip, and every locked instruction on the peer's way to the answer waits for it. When the peer
 * answers with inline SENDs, their records carry the same acknowledgement ({@code FrameDescriptor.FLAG_ACK}) and the
 * line tells nothing new. So:
 * <ul>
 *   <li><b>line</b> mode (a new connection): the line is read on every look, as the other control fields are.</li>
 *   <li>After {@value #CARRIED_RUN} receive rounds in a row in which records carried acknowledgements and the line had
 *       nothing beyond them, <b>carried</b> mode: the line is left alone while acknowledgements come on records, and
 *       read only when one is overdue, after {@value #OVERDUE_LOOKS} looks without an acknowledgement, or after
 *       {@value #OVERDUE_NS} ns of them (checked every {@value #CLOCK_EVERY} looks), or when the peer has closed.</li>
 *   <li>Back to line mode as soon as a read of the line finds an acknowledgement the records had not carried (the
 *       peer stopped answering, or answers with something else), and the run needed to leave it again doubles, up to
 *       {@value #MAX_CARRIED_RUN} rounds.</li>
 * </ul>
 * The cost of a wrong guess is bounded: an acknowledgement that only the line has is seen after at most those looks
 * or that time, and a workload that keeps changing between answering and not pays it ever more rarely. What the peer
 * acknowledged, and when it did, do not change: only when this side looks.
 * <p>
 * Threading: {@link #afterRound} and {@link #lineDue} (the receive round and its look) run inside the device's
 * progress, the one receiving thread of the queue pair, so the look count and the mode are plain fields. Taking an
 * acknowledgement once is {@link ShmSendWindow}'s job, not this class's: it only decides when the line is read.
 */
final class ShmAckWatch
{
    /** Rounds in a row with acknowledgements on records and none new on the line, before carried mode. */
    static final int CARRIED_RUN = 8;
    /** The most the run before carried mode grows to after returns to line mode. */
    static final int MAX_CARRIED_RUN = 1024;
    /** Looks without an acknowledgement after which carried mode reads the line. */
    static final int OVERDUE_LOOKS = 256;
    /** Time without an acknowledgement after which carried mode reads the line. */
    static final long OVERDUE_NS = 5_000;
    /** Looks between clock readings in carried mode (a power of two). */
    static final int CLOCK_EVERY = 16;

    private final NanoClock clock;
    private boolean carried;
    private boolean overdue;
    private int run;
    private int runNeeded = CARRIED_RUN;
    private int looks;
    private long waitingSinceNs;

    /** A clock, for the overdue bound (tests give their own). */
    @FunctionalInterface
    interface NanoClock
    {
        /** @return a monotonic time in nanoseconds. */
        long nanoTime();
    }

    ShmAckWatch()
    {
        this(System::nanoTime);
    }

    ShmAckWatch(final NanoClock clock)
    {
        this.clock = clock;
    }

    /** For a new connection (setup path, nothing running): line mode. */
    void reset()
    {
        carried = false;
        overdue = false;
        run = 0;
        runNeeded = CARRIED_RUN;
        looks = 0;
        waitingSinceNs = 0;
    }

    /** @return true in carried mode (for tests and counters). */
    boolean isCarried()
    {
        return carried;
    }

    /**
     * A look at the peer's state: whether it should include the acknowledgement line. Once overdue, the answer stays
     * yes until a look finds the line quiet ({@link #lineQuiet}) or a round reads it ({@link #afterRound}): the look
     * that found it due and the round it leads to both read it.
     *
     * @return true to read the line now.
     */
    boolean lineDue()
    {
        if (!carried || overdue)
        {
            return true;
        }
        final int n = ++looks;
        if (n >= OVERDUE_LOOKS)
        {
            overdue = true;
            return true;
        }
        if (0 == (n & (CLOCK_EVERY - 1)))
        {
            final long now = clock.nanoTime();
            if (n == CLOCK_EVERY)
            {
                waitingSinceNs = now;
            }
            else if (now - waitingSinceNs >= OVERDUE_NS)
            {
                overdue = true;
                return true;
            }
        }
        return false;
    }

    /** A look read the line, due, and found nothing new on it: the next wait starts over. */
    void lineQuiet()
    {
        overdue = false;
        looks = 0;
    }

    /**
     * The end of a receive round's look at acknowledgements.
     *
     * @param lineAck    what the line held, or -1 if the round did not read it.
     * @param carriedAck the highest acknowledgement the round's records carried (widened), or -1 if none did.
     * @param seenBefore the acknowledgements taken before the round.
     */
    void afterRound(final long lineAck, final long carriedAck, final long seenBefore)
    {
        final long fromRecords = Math.max(carriedAck, seenBefore);
        if (lineAck > fromRecords)
        {
            // The line had one the records did not carry: they are not (or no longer) the way acknowledgements come.
            if (carried)
            {
                runNeeded = Math.min(2 * runNeeded, MAX_CARRIED_RUN);
            }
            carried = false;
            overdue = false;
            run = 0;
            looks = 0;
            return;
        }
        if (lineAck >= 0)
        {
            // Read (due, or in line mode) and nothing new on it: a carried-mode wait starts over.
            lineQuiet();
        }
        if (carriedAck > seenBefore)
        {
            looks = 0;
            if (!carried && lineAck >= 0 && ++run >= runNeeded)
            {
                carried = true;
            }
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import java.util.concurrent.TimeUnit;

import io.verbs4j.collectives.CollectiveException;
import io.verbs4j.collectives.link.Links;
import io.verbs4j.collectives.link.PeerLiveness;
import org.agrona.concurrent.IdleStrategy;

/**
 * What a thread running an operation does while it waits for a peer: drive the links ({@link Links#poll()}), back
 * off with the idle strategy when nothing happened, and fail the operation with a {@link CollectiveException} when
 * a link failed, the communicator was aborted, or the operation deadline passed. Failures are only checked while
 * blocked, so an operation whose data all arrived before a peer left still completes.
 * <p>
 * Holds the description of the running operation for the exception message. Single-threaded, except
 * {@link #requestAbort()}.
 */
public final class Waiter
{
    private static final long SCAN_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final System.Logger LOG = System.getLogger("io.verbs4j.collectives");
    /**
     * Least silence that makes a peer the one to blame for a timeout (or half the operation timeout, if less): far
     * above the tick interval of a waiting rank (1 ms), and above the pauses a loaded machine or a GC gives a live one.
     */
    static final long MIN_BLAME_SILENCE_NS = TimeUnit.MILLISECONDS.toNanos(1_000);

    private final Links links;
    private final IdleStrategy idle;
    private final long opTimeoutNs;
    private final long blameSilenceNs;
    private PeerLiveness liveness;
    private volatile boolean abortRequested;
    private long deadlineNs;
    private long startNs;
    private long stallWarnNs;
    private boolean stallWarned;
    private long lastScanNs;
    private String opName = "none";
    private long opSeq;
    private long opBytes;
    private Object detailA;
    private Object detailB;
    private Object detailC;

    /**
     * @param links       the links.
     * @param idle        back-off.
     * @param opTimeoutNs operation timeout.
     */
    public Waiter(final Links links, final IdleStrategy idle, final long opTimeoutNs)
    {
        this.links = links;
        this.idle = idle;
        this.opTimeoutNs = opTimeoutNs;
        this.blameSilenceNs = Math.min(MIN_BLAME_SILENCE_NS, opTimeoutNs / 2);
    }

    /**
     * Starts the clock of an operation.
     *
     * @param name    operation name (a constant).
     * @param bytes   its size, for messages.
     * @param detailA e.g. the data type, or null (only turned into text on failure).
     * @param detailB e.g. the reduce op, or null.
     * @param detailC e.g. the algorithm, or null.
     */
    public void begin(final String name, final long bytes, final Object detailA, final Object detailB,
        final Object detailC)
    {
        begin(name, opSeq + 1, System.nanoTime(), bytes, detailA, detailB, detailC);
    }

    /**
     * Starts the clock of an operation whose number and start time the caller already has (the engine takes them
     * once per operation, for its history as well: one clock read, one numbering in messages and history).
     *
     * @param name    operation name (a constant).
     * @param seq     the operation's sequence number on this rank.
     * @param startNs its start, {@link System#nanoTime()}.
     * @param bytes   its size, for messages.
     * @param detailA e.g. the data type, or null.
     * @param detailB e.g. the reduce op, or null.
     * @param detailC e.g. the algorithm, or null.
     */
    public void begin(final String name, final long seq, final long startNs, final long bytes, final Object detailA,
        final Object detailB, final Object detailC)
    {
        opName = name;
        opBytes = bytes;
        this.detailA = detailA;
        this.detailB = detailB;
        this.detailC = detailC;
        opSeq = seq;
        this.startNs = startNs;
        deadlineNs = startNs + opTimeoutNs;
        stallWarned = false;
        idle.reset();
    }

    /**
     * Sets after how long a wait is reported (once per operation) as a stall while the operation goes on waiting up
     * to its timeout: a rank that checkpoints or evaluates for a while is normal in a real job, but a rank that never
     * makes the call should be visible long before the timeout ends the job.
     *
     * @param ns the stall report threshold, 0 for none.
     */
    public void stallWarning(final long ns)
    {
        stallWarnNs = ns;
    }

    /**
     * Keeps {@code liveness} ticking while waiting, and asks it which peer to blame when an operation times out.
     *
     * @param liveness the peers' liveness (the flag links' heartbeats).
     */
    public void watch(final PeerLiveness liveness)
    {
        this.liveness = liveness;
    }

    /** @return the links. */
    public Links links()
    {
        return links;
    }

    /**
     * One round of waiting: poll, and back off if nothing happened.
     *
     * @param waitingOn the peer waited for (for the message), or -1.
     * @throws CollectiveException if the operation cannot complete.
     */
    public void poll(final int waitingOn)
    {
        poll(waitingOn, false);
    }

    /**
     * One round of waiting in the final barrier of {@code close()}: as {@link #poll(int)}, except that only the
     * failure of {@code waitingOn}'s link fails it. Peers this rank no longer waits for may have finished the barrier
     * and left (their links going away is then no failure); one that crashed instead fails the ranks that wait for
     * it, and their leaving in turn fails whoever waits for them, so no rank hangs.
     *
     * @param waitingOn the peer whose barrier message this rank waits for.
     * @throws CollectiveException if that peer's link failed, abort was requested or the deadline passed.
     */
    public void pollLeaving(final int waitingOn)
    {
        poll(waitingOn, true);
    }

    private void poll(final int waitingOn, final boolean leaving)
    {
        if (links.poll() > 0)
        {
            idle.reset();
            return;
        }
        if (leaving)
        {
            checkLeaving(waitingOn);
        }
        else
        {
            check(waitingOn);
        }
        idle.idle();
    }

    private void checkLeaving(final int waitingOn)
    {
        if (links.link(waitingOn).isFailed())
        {
            throw failure(CollectiveException.Reason.PEER_FAILED, waitingOn, "connection to rank " + waitingOn +
                " failed: " + (links.failedPeer() == waitingOn ? links.failureReason() :
                    "it left or failed before this rank's final barrier heard from it"));
        }
        checkAbortScanAndDeadline(waitingOn);
    }

    /** Tells the back-off that a wait ended: the next one starts spinning again (and the strategy learns). */
    public void progressed()
    {
        idle.reset();
    }

    /**
     * Throws if a link failed, abort was requested or the deadline passed.
     *
     * @param waitingOn the peer waited for, or -1.
     */
    public void check(final int waitingOn)
    {
        if (links.failedPeer() >= 0)
        {
            throw failure(CollectiveException.Reason.PEER_FAILED, links.failedPeer(),
                "connection to rank " + links.failedPeer() + " failed: " + links.failureReason() +
                (waitingOn >= 0 && waitingOn != links.failedPeer() ? " (was waiting for rank " + waitingOn + ")" : ""));
        }
        checkAbortScanAndDeadline(waitingOn);
    }

    private void checkAbortScanAndDeadline(final int waitingOn)
    {
        if (abortRequested)
        {
            throw failure(CollectiveException.Reason.ABORTED, waitingOn, "communicator aborted");
        }
        final long now = System.nanoTime();
        if (now - lastScanNs > SCAN_INTERVAL_NS)
        {
            lastScanNs = now;
            links.scan();
            if (null != liveness)
            {
                liveness.tick(now);
            }
        }
        if (stallWarnNs > 0 && !stallWarned && now - startNs > stallWarnNs)
        {
            stallWarned = true;
            reportStall(waitingOn, now);
        }
        if (now - deadlineNs > 0)
        {
            throw timeout(now, waitingOn);
        }
    }

    private void reportStall(final int waitingOn, final long now)
    {
        final long waitedMs = TimeUnit.NANOSECONDS.toMillis(now - startNs);
        // As for a timeout: the rank waited for may itself wait for the one whose heartbeat stood still.
        final int silent = null == liveness ? -1 : liveness.silentPeer(now, blameSilenceNs);
        final String silence = silent < 0 || silent == waitingOn ? "" : " (rank " + silent + " has not answered for " +
            TimeUnit.NANOSECONDS.toMillis(liveness.silenceNs(silent, now)) + " ms)";
        LOG.log(System.Logger.Level.WARNING, () -> "verbs4j: rank " + links.rank() + " of " + links.size() + ": " +
            opName + " #" + opSeq + " (" + opBytes + " bytes" + detail(detailA) + detail(detailB) + detail(detailC) +
            ") has waited " + waitedMs + " ms" + (waitingOn >= 0 ? " for rank " + waitingOn : "") + silence +
            "; still waiting (the operation times out after " + TimeUnit.NANOSECONDS.toMillis(opTimeoutNs) +
            " ms). Fine if that rank is busy (checkpoint, evaluation); a rank that never makes this call hangs " +
            "the job.");
    }

    private CollectiveException timeout(final long nowNs, final int waitingOn)
    {
        final String prefix = "no progress within the operation timeout of " +
            TimeUnit.NANOSECONDS.toMillis(opTimeoutNs) + " ms";
        // The rank waited for may itself be waiting for another: blame the one whose heartbeat stood still.
        final int silent = null == liveness ? -1 : liveness.silentPeer(nowNs, blameSilenceNs);
        if (silent >= 0)
        {
            return failure(CollectiveException.Reason.TIMEOUT, silent, prefix + ": rank " + silent +
                " has not answered for " + TimeUnit.NANOSECONDS.toMillis(liveness.silenceNs(silent, nowNs)) +
                " ms (stopped, hung, or not in this call)" +
                (waitingOn >= 0 && waitingOn != silent ? "; this rank was waiting for rank " + waitingOn : ""));
        }
        return failure(CollectiveException.Reason.TIMEOUT, waitingOn, prefix +
            (waitingOn >= 0 ? " waiting for rank " + waitingOn + " (hung, or it did not make the same call)" : ""));
    }

    /**
     * @param reason why.
     * @param peer   peer involved or -1.
     * @param why    description.
     * @return the exception, naming this rank and the operation.
     */
    public CollectiveException failure(final CollectiveException.Reason reason, final int peer, final String why)
    {
        return new CollectiveException(reason, links.rank(), peer, "rank " + links.rank() + " of " + links.size() +
            ": " + opName + " #" + opSeq + " (" + opBytes + " bytes" + detail(detailA) + detail(detailB) +
            detail(detailC) + ") failed: " + why, null);
    }

    private static String detail(final Object detail)
    {
        return null == detail ? "" : " " + detail;
    }

    /** Asks the running (or next) operation to stop with ABORTED. Any thread. */
    public void requestAbort()
    {
        abortRequested = true;
    }

    /** @return whether abort was requested. */
    public boolean abortRequested()
    {
        return abortRequested;
    }

    /** @return the running operation's sequence number on this rank. */
    public long opSeq()
    {
        return opSeq;
    }

    /** @return the running operation's name. */
    public String opName()
    {
        return opName;
    }
}

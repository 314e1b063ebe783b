// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import java.util.concurrent.TimeUnit;

import io.verbs4j.collectives.CollectiveException;
import io.verbs4j.collectives.link.Links;
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

    private final Links links;
    private final IdleStrategy idle;
    private final long opTimeoutNs;
    private volatile boolean abortRequested;
    private long deadlineNs;
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
        opName = name;
        opBytes = bytes;
        this.detailA = detailA;
        this.detailB = detailB;
        this.detailC = detailC;
        opSeq++;
        deadlineNs = System.nanoTime() + opTimeoutNs;
        idle.reset();
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
        if (links.poll() > 0)
        {
            idle.reset();
            return;
        }
        check(waitingOn);
        idle.idle();
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
        if (abortRequested)
        {
            throw failure(CollectiveException.Reason.ABORTED, waitingOn, "communicator aborted");
        }
        final long now = System.nanoTime();
        if (now - lastScanNs > SCAN_INTERVAL_NS)
        {
            lastScanNs = now;
            links.scan();
        }
        if (now - deadlineNs > 0)
        {
            throw failure(CollectiveException.Reason.TIMEOUT, waitingOn, "no progress within the operation " +
                "timeout of " + TimeUnit.NANOSECONDS.toMillis(opTimeoutNs) + " ms" +
                (waitingOn >= 0 ? " waiting for rank " + waitingOn + " (hung, or it did not make the same call)" : ""));
        }
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

    /** @return the running operation's name. */
    public String opName()
    {
        return opName;
    }
}

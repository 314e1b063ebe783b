// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

/**
 * The period of an event-loop tick that only has work to do once the threads polling a connection stop: the
 * ownership tick of event mode and the backstop of polling mode ({@link TcpReadPolicy}). While pollers keep
 * polling, each tick doubles the next period, up to a bound; once a tick finds they stopped, the period returns to
 * the base. Each tick wakes the I/O thread on a machine whose cores the polling threads fill, and a tick that takes
 * the driver lock and is then preempted stalls every poller of the connection for a scheduler slice: at a fixed
 * 200 µs, polling mode's backstop made one 8 B WRITE round trip in a hundred take 2-4 ms (mean 100-320 µs against
 * a 4 µs median). An application that stops polling waits at most the bounded period for the tick.
 * <p>
 * Threading: the connection's event loop only. Allocation-free.
 */
final class TcpTickPeriod
{
    private final long baseNs;
    private final long maxNs;
    private long periodNs;

    /**
     * @param baseNs     the period while nobody polls, and the first one.
     * @param maxBackoff the longest period, as a multiple of the base.
     */
    TcpTickPeriod(final long baseNs, final int maxBackoff)
    {
        if (baseNs <= 0 || maxBackoff < 1)
        {
            throw new IllegalArgumentException("tick period must be positive and its back-off at least 1: " +
                baseNs + " ns, x" + maxBackoff);
        }
        this.baseNs = baseNs;
        this.maxNs = baseNs * maxBackoff;
        this.periodNs = baseNs;
    }

    /** @return the next period after a tick that found the pollers active: twice the last, at most the bound. */
    long backOff()
    {
        periodNs = Math.min(periodNs * 2, maxNs);
        return periodNs;
    }

    /** @return the next period after a tick that found nobody polling: the base. */
    long reset()
    {
        periodNs = baseNs;
        return periodNs;
    }

    /** @return the current period, ns. */
    long periodNs()
    {
        return periodNs;
    }

    /** @return the longest period, ns. */
    long maxNs()
    {
        return maxNs;
    }
}

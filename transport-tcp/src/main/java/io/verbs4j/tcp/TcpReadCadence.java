// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

/**
 * Whether the threads polling a connection read its socket often enough to own its reads
 * ({@link TcpReadPolicy}): a read with data counts as frequent when it comes within a patience of the previous
 * read with data by a poller. A thread in a spin phase (a latency-bound exchange, a collective, a stream) reads
 * microseconds apart; an application that looks at its completion queue now and then (a one-sided target polling
 * every millisecond) does not, and must leave arrivals to the I/O thread: owning the reads, it kept epoll's read
 * interest off, and the READ requests it serves waited for its next poll or an ownership tick.
 * <p>
 * The same test, applied to polls with or without data, tells whether pollers that own the reads still poll often
 * enough to keep them.
 * <p>
 * Threading: called with the connection's driver lock held (one reader at a time). Allocation-free.
 */
final class TcpReadCadence
{
    private final long patienceNs;
    private long lastReadNs;
    private boolean anyRead;

    /**
     * @param patienceNs longest gap between two reads with data that still counts as frequent.
     */
    TcpReadCadence(final long patienceNs)
    {
        this.patienceNs = patienceNs;
    }

    /**
     * A poller just read data.
     *
     * @param nowNs the clock ({@link System#nanoTime()}).
     * @return true if the previous read with data was at most the patience ago.
     */
    boolean onRead(final long nowNs)
    {
        final boolean often = anyRead && nowNs - lastReadNs <= patienceNs;
        anyRead = true;
        lastReadNs = nowNs;
        return often;
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

/**
 * When input last looked likely on one connection, which tells polling threads whether to keep reading its socket
 * in event mode ({@link TcpReadPolicy#POLLER_PATIENCE_NS}, {@link TcpReadPolicy#readAsksForMore()}): a post (its
 * answer will come), a frame written that will be answered, data read that asks for more. It also keeps when the
 * application last posted, and last posted a bulk payload, which tell a collective's rank from a stream's receiver.
 * <p>
 * In polling mode pollers always read, so nothing is kept and no clock is read (three reads per message would only
 * add to a busy-polled round trip). Threading: any thread; plain volatile times, a racy heuristic.
 */
final class TcpInputSigns
{
    private final boolean tracked;
    private volatile long inputExpectedNs = System.nanoTime();
    /** When the application last posted a request (never: long ago). */
    private volatile long postedNs = System.nanoTime() - Long.MAX_VALUE / 2;
    /** When the application last posted a request that carries a bulk payload (never: long ago). */
    private volatile long bulkPostedNs = postedNs;

    /** @param tracked whether the times are kept (event mode). */
    TcpInputSigns(final boolean tracked)
    {
        this.tracked = tracked;
    }

    /** Input is likely soon (a frame written will be answered; data came, more may follow). */
    void expectInput()
    {
        if (tracked)
        {
            inputExpectedNs = System.nanoTime();
        }
    }

    /**
     * The application posted a request; its answer will come.
     *
     * @param bulk whether the request carries a bulk payload ({@link TcpReadSpin#BULK_BATCH_BYTES} or more).
     */
    void posted(final boolean bulk)
    {
        if (!tracked)
        {
            return;
        }
        final long now = System.nanoTime();
        postedNs = now;
        inputExpectedNs = now;
        if (bulk)
        {
            bulkPostedNs = now;
        }
    }

    /** @return when input last looked likely ({@link System#nanoTime()}). */
    long inputExpectedNs()
    {
        return inputExpectedNs;
    }

    /** @return when the application last posted a request ({@link System#nanoTime()}). */
    long postedNs()
    {
        return postedNs;
    }

    /** @return when the application last posted a request with a bulk payload ({@link System#nanoTime()}). */
    long bulkPostedNs()
    {
        return bulkPostedNs;
    }
}

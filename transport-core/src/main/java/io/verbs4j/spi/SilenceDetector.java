// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

/**
 * Decides when a peer has been silent for the peer timeout, counting only time during which this side was itself
 * able to listen. A check that comes much later than expected means the checking thread was descheduled (a loaded
 * machine, a GC pause), and the peer's signs of life may be waiting unread: such a gap restarts the count instead
 * of adding to it. Providers feed it from their own liveness signal (a heartbeat counter, bytes read).
 * <p>
 * Single-threaded: one checker per peer or connection.
 */
public final class SilenceDetector
{
    private long lastCheckNs;
    private boolean started;
    private long silentNs;

    /**
     * Starts counting from {@code nowNs} (otherwise the first {@link #isSilent} call starts it).
     *
     * @param nowNs now.
     */
    public void start(final long nowNs)
    {
        lastCheckNs = nowNs;
        started = true;
        silentNs = 0;
    }

    /**
     * @param nowNs     now.
     * @param heard     whether the peer gave a sign of life since the previous check.
     * @param stallNs   a gap between checks longer than this means the checker was not running; it is not counted.
     * @param timeoutNs the peer timeout.
     * @return true once the counted silence reaches {@code timeoutNs}.
     */
    public boolean isSilent(final long nowNs, final boolean heard, final long stallNs, final long timeoutNs)
    {
        final long gapNs = started ? nowNs - lastCheckNs : 0;
        lastCheckNs = nowNs;
        started = true;
        if (heard || gapNs > stallNs)
        {
            silentNs = 0;
            return false;
        }
        silentNs += gapNs;
        return silentNs >= timeoutNs;
    }

    /** @return the silence counted so far, for messages. */
    public long silentNs()
    {
        return silentNs;
    }
}

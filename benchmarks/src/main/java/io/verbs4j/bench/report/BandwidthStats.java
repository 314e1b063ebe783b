// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.report;

import org.HdrHistogram.Histogram;

/**
 * One perftest bandwidth row. GB/s means 1e9 bytes per second (bytes per nanosecond); Mpps is 1e6 messages per
 * second.
 * <ul>
 *     <li>BW average = all timed bytes / time from the first send to the last acknowledgement.</li>
 *     <li>BW peak = the fastest full window: window bytes / shortest full-window time (from the histogram). perftest
 *     takes the best run of per-message post/completion stamps, which a socket does not have; windows are the
 *     closest equivalent. With no full window, peak = average.</li>
 *     <li>MsgRate = timed messages / the same time as the average.</li>
 * </ul>
 *
 * @param bytes        message size.
 * @param iterations   timed messages.
 * @param peakGBps     BW peak.
 * @param averageGBps  BW average.
 * @param msgRateMpps  message rate.
 */
public record BandwidthStats(int bytes, long iterations, double peakGBps, double averageGBps, double msgRateMpps)
{
    /**
     * Computes the row.
     *
     * @param bytes          message size.
     * @param messages       timed messages.
     * @param elapsedNs      time for all timed messages, including the last acknowledgement.
     * @param fullWindowsNs  the duration of each full timed window (partial windows are not recorded).
     * @param window         messages per full window.
     * @return the row.
     * @throws IllegalArgumentException if {@code messages} or {@code elapsedNs} is not positive.
     */
    public static BandwidthStats from(
        final int bytes, final long messages, final long elapsedNs, final Histogram fullWindowsNs, final int window)
    {
        if (messages <= 0 || elapsedNs <= 0)
        {
            throw new IllegalArgumentException("messages and elapsedNs must be > 0");
        }
        final double totalBytes = (double)bytes * messages;
        final double averageGBps = totalBytes / elapsedNs;
        final double peakGBps = 0 == fullWindowsNs.getTotalCount() ?
            averageGBps : (double)bytes * window / fullWindowsNs.getMinValue();
        final double msgRateMpps = messages * 1_000.0 / elapsedNs;
        return new BandwidthStats(bytes, messages, Math.max(peakGBps, averageGBps), averageGBps, msgRateMpps);
    }
}

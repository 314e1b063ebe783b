// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.spi;

/**
 * How a bandwidth session's messages are cut into windows; both sides derive it from the {@link SessionSpec}, so
 * the responder knows when to acknowledge without any extra signalling.
 * <p>
 * Warm-up messages come first, in windows of {@link SessionSpec#window()} with a shorter last one; then the timed
 * messages, in the same way. A warm-up window never contains timed messages.
 */
public final class WindowPlan
{
    private WindowPlan()
    {
    }

    /**
     * Number of windows needed for {@code messages} messages.
     *
     * @param messages message count, >= 0.
     * @param window   messages per full window, >= 1.
     * @return the window count.
     */
    public static long windowCount(final long messages, final int window)
    {
        return (messages + window - 1) / window;
    }

    /**
     * Size of window {@code index} when {@code messages} messages go out in windows of {@code window}.
     *
     * @param messages message count.
     * @param window   messages per full window.
     * @param index    window index, 0-based, below {@link #windowCount}.
     * @return messages in that window.
     */
    public static int windowSize(final long messages, final int window, final long index)
    {
        final long remaining = messages - index * window;
        return (int)Math.min(window, remaining);
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.stat;

/**
 * A group of counters that the {@link StatPublisher} samples, e.g. one device's or one communicator's.
 */
@FunctionalInterface
public interface StatSource
{
    /**
     * Reports every counter of the group once. Called on the publisher's thread while the owner keeps counting:
     * each value must be safe to read from another thread (a best-effort snapshot, not a consistent cut).
     *
     * @param sink where each counter goes.
     */
    void sample(StatSink sink);

    /** Receives the counters of one {@link StatSource#sample} call. */
    @FunctionalInterface
    interface StatSink
    {
        /**
         * One counter.
         *
         * @param label what it counts, e.g. {@code payload bytes sent} (no tab or line break).
         * @param value its value now.
         */
        void counter(String label, long value);
    }
}

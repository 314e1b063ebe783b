// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.stat;

/**
 * One counter of a provider's fixed set, usually an enum constant ({@code TcpCounter}, {@code ShmCounter}): its index
 * in the set's storage and its label in the counters file.
 */
public interface CounterType
{
    /** @return the counter's index, 0 to the size of its set minus one. */
    int id();

    /** @return what it counts, e.g. {@code payload bytes sent} (no tab or line break). */
    String label();
}

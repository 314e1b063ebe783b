// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import io.verbs4j.stat.AtomicCounters;

/**
 * The counters of one device: one atomic long per {@link TcpCounter}, updated by the I/O threads without
 * allocating. Cheap enough for the data path (an uncontended atomic add per frame).
 */
public final class TcpCounters extends AtomicCounters<TcpCounter>
{
    /** All counters at 0. */
    public TcpCounters()
    {
        super(TcpCounter.class);
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

/**
 * Layout of the {@code shm-cacheline} file: two sequence words, each alone in its cache line and two cache lines
 * apart (so the adjacent-line prefetcher does not pair them), each written by one side only.
 * <pre>
 *   0                   64                  128                 192        4096
 *   +-------------------+-------------------+-------------------+---- ... --+
 *   | PING (long)       |  padding          | PONG (long)       | padding   |
 *   | initiator writes  |                   | responder writes  |           |
 *   +-------------------+-------------------+-------------------+---- ... --+
 * </pre>
 * Round trip {@code i} (1-based): the initiator stores {@code i} to PING with release semantics, the responder
 * sees it with a volatile load and stores {@code i} to PONG, the initiator sees that.
 */
final class CacheLineLayout
{
    /** Offset of the initiator's sequence word. */
    static final int PING_OFFSET = 0;
    /** Offset of the responder's sequence word. */
    static final int PONG_OFFSET = 128;
    /** File length: one page. */
    static final int LENGTH = 4096;

    private CacheLineLayout()
    {
    }
}

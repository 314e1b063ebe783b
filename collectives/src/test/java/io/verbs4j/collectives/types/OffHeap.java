// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.types;

import org.agrona.UnsafeApi;

/** Test helper: a block of native memory that is freed on close, so tests release it even when they fail. */
final class OffHeap implements AutoCloseable
{
    final long address;
    final long length;

    OffHeap(final long length)
    {
        this.length = length;
        this.address = UnsafeApi.allocateMemory(Math.max(1, length));
        UnsafeApi.setMemory(address, Math.max(1, length), (byte)0);
    }

    public void close()
    {
        UnsafeApi.freeMemory(address);
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.types;

import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Counts past 2^31 elements: the kernels index with longs. Needs ~2 GiB of native memory, so it runs with -Pslow. */
@Tag("slow")
class ReductionsLargeBufferTest
{
    @Test
    void shouldReduceBuffersLargerThanTwoGiB()
    {
        final long count = (1L << 31) + 64;
        try (OffHeap buffer = new OffHeap(count))
        {
            UnsafeApi.setMemory(buffer.address, count, (byte)3);
            Reductions.reduce(DataType.INT8, ReduceOp.SUM, buffer.address, buffer.address, count);
            assertEquals(6, UnsafeApi.getByte(buffer.address));
            assertEquals(6, UnsafeApi.getByte(buffer.address + (1L << 31)));
            assertEquals(6, UnsafeApi.getByte(buffer.address + count - 1));
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.coll;

import io.verbs4j.MemoryRegion;
import io.verbs4j.collectives.Communicator;
import io.verbs4j.collectives.CommunicatorContext;
import io.verbs4j.collectives.rendezvous.InMemoryStore;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The check data: exact expected values, and wrong elements are counted (poison, a flipped byte). */
class DataPatternTest
{
    @Test
    void shouldMakeAveragesExactIntegers()
    {
        for (int n = 1; n <= 13; n++)
        {
            for (long i = 0; i < 50; i++)
            {
                long sum = 0;
                for (int r = 0; r < n; r++)
                {
                    sum += DataPattern.reduceInput(ReduceOp.AVG, DataType.FLOAT32, n, r, i);
                }
                assertEquals(0, sum % n);
                assertEquals(sum / n, DataPattern.reduceExpected(ReduceOp.AVG, DataType.FLOAT32, n, i));
                if (n <= 10)
                {
                    // int8 sums stay within 127 up to 10 ranks; beyond, they wrap as the kernels do
                    assertEquals(i % 3 + n - 1, DataPattern.reduceExpected(ReduceOp.AVG, DataType.INT8, n, i));
                }
            }
        }
    }

    @Test
    void shouldKeepSumsExactInBfloat16()
    {
        for (long i = 0; i < 100; i++)
        {
            final long sum = DataPattern.reduceExpected(ReduceOp.SUM, DataType.BFLOAT16, 13, i);
            assertEquals(true, sum <= 256, () -> "sum " + sum);
        }
    }

    @Test
    void shouldCountWrongElements()
    {
        try (InMemoryStore store = new InMemoryStore();
             Communicator comm = Communicator.create(new CommunicatorContext().rank(0).size(1).store(store)))
        {
            final MemoryRegion region = comm.allocate(4096);
            final DataPattern pattern = new DataPattern();
            for (final DataType type : DataType.values())
            {
                final long count = 4096 / type.sizeBytes();
                pattern.poison(region, 0, 4096);
                assertEquals(count, pattern.countWrong(region, 0, count, type, j -> DataPattern.block(3, j)));
                pattern.write(region, 0, count, type, j -> DataPattern.block(3, j));
                assertEquals(0, pattern.countWrong(region, 0, count, type, j -> DataPattern.block(3, j)));
                region.putByte(type.sizeBytes() * 5L, (byte)(region.getByte(type.sizeBytes() * 5L) ^ 0x40));
                assertEquals(1, pattern.countWrong(region, 0, count, type, j -> DataPattern.block(3, j)), type::name);
            }
        }
    }
}

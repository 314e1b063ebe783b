// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives;

import java.time.Duration;

import io.verbs4j.MemoryRegion;
import io.verbs4j.collectives.launch.ThreadCluster;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * An AllReduce over a registered buffer larger than 2 GiB (long counts, messages split at the device's maximum,
 * regions mapped in 1 GiB chunks), checked at both ends of the buffer and across the 2 GiB boundary. Slow (several
 * GiB of shared memory and seconds of copying): runs with {@code -Pslow}.
 */
@Tag("slow")
class LargeAllReduceTest
{
    private static final long COUNT = (2L << 30) / 4 + 1_000_003; // float32 elements: just over 2 GiB

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp"})
    void shouldReduceMoreThanTwoGibibytesInPlace(final String transport)
    {
        new ThreadCluster(2, Duration.ofMinutes(10)).run((rank, n, store) ->
        {
            try (Communicator comm = Communicator.create(new CommunicatorContext().rank(rank).size(n).store(store)
                .transport(transport).name("large-" + transport).calibrate(false).opTimeout(Duration.ofMinutes(5))))
            {
                final MemoryRegion region = comm.allocate(4 * COUNT);
                final long[] probes = {0, (1L << 29) - 1, 1L << 29, COUNT / 2, COUNT - 1};
                for (final long i : probes)
                {
                    region.putInt(4 * i, Float.floatToRawIntBits(rank + 1 + (float)(i % 7)));
                }
                comm.allReduce(CommBuffer.of(region), CommBuffer.of(region), COUNT, DataType.FLOAT32, ReduceOp.SUM,
                    Algorithm.RING);
                for (final long i : probes)
                {
                    // Both ranks wrote value(rank) at the probes and zero elsewhere: the sum is (1 + 2) + 2 * (i % 7).
                    assertEquals(3f + 2 * (i % 7), Float.intBitsToFloat(region.getInt(4 * i)), "element " + i);
                }
                assertEquals(0f, Float.intBitsToFloat(region.getInt(4 * 12345)), "an untouched element stays 0");
                region.close();
            }
        });
    }
}

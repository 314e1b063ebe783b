// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives;

import java.time.Duration;
import java.util.Arrays;

import io.verbs4j.collectives.launch.ThreadCluster;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link CollectiveOp}: a descriptor set once runs many times, blocking or submitted; submit copies it, so changing
 * it afterwards does not change the queued call; an empty one is refused with a message saying what to do.
 */
class CollectiveOpTest
{
    @Test
    void shouldRunASetDescriptorRepeatedlyAndCopyItOnSubmit()
    {
        new ThreadCluster(3, Duration.ofSeconds(60)).run((rank, size, store) ->
        {
            try (Communicator comm = Communicator.create(new CommunicatorContext().rank(rank).size(size)
                .store(store).transport("shm").name("op").calibrate(false)))
            {
                final long[] v = new long[5];
                final CollectiveOp sum = new CollectiveOp().allReduce(CommBuffer.of(v), CommBuffer.of(v), v.length,
                    DataType.INT64, ReduceOp.SUM);
                for (int i = 0; i < 100; i++)
                {
                    Arrays.fill(v, rank + i);
                    comm.run(sum);
                    final long[] expected = new long[5];
                    Arrays.fill(expected, 3L + 3L * i);
                    assertArrayEquals(expected, v, "call " + i);
                }

                final int[] first = {rank + 1};
                final int[] second = {10 * (rank + 1)};
                final CollectiveOp op = new CollectiveOp().allReduce(CommBuffer.of(first), CommBuffer.of(first), 1,
                    DataType.INT32, ReduceOp.MAX);
                final CollectiveHandle h1 = comm.submit(op);
                op.allReduce(CommBuffer.of(second), CommBuffer.of(second), 1, DataType.INT32, ReduceOp.SUM);
                final CollectiveHandle h2 = comm.submit(op);
                assertTrue(h1.await(Duration.ofSeconds(30)));
                assertTrue(h2.await(Duration.ofSeconds(30)));
                assertEquals(3, first[0], "the first submission kept its own buffer and operator");
                assertEquals(60, second[0]);

                final CollectiveOp root = new CollectiveOp().broadcast(CommBuffer.of(v), v.length, DataType.INT64, 2)
                    .algorithm(Algorithm.TREE);
                Arrays.fill(v, rank);
                comm.run(root);
                assertArrayEquals(new long[]{2, 2, 2, 2, 2}, v);
                assertTrue(root.toString().contains("broadcast"), root.toString());

                final IllegalStateException empty = assertThrows(IllegalStateException.class,
                    () -> comm.run(new CollectiveOp()));
                assertTrue(empty.getMessage().contains("has no operation"), empty.getMessage());
                comm.barrier();
            }
        });
    }
}

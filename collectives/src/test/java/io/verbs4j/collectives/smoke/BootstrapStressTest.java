// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.smoke;

import java.time.Duration;

import io.verbs4j.collectives.CommBuffer;
import io.verbs4j.collectives.Communicator;
import io.verbs4j.collectives.CommunicatorContext;
import io.verbs4j.collectives.launch.ThreadCluster;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import org.junit.jupiter.api.Test;

@org.junit.jupiter.api.Tag("slow")
class BootstrapStressTest
{
    @Test
    void createMany()
    {
        for (int i = 0; i < 15; i++)
        {
            final int round = i;
            new ThreadCluster(4, Duration.ofSeconds(60)).run((rank, size, store) ->
            {
                try (Communicator comm = Communicator.create(new CommunicatorContext().rank(rank).size(size)
                    .store(store).transport("shm").calibrate(false).name("stress-" + round)))
                {
                    final int[] v = {rank};
                    comm.allReduce(CommBuffer.of(v), CommBuffer.of(v), 1, DataType.INT32, ReduceOp.SUM);
                }
            });
        }
    }
}

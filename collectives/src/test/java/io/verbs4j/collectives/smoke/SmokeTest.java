package io.verbs4j.collectives.smoke;

import java.time.Duration;

import io.verbs4j.collectives.Algorithm;
import io.verbs4j.collectives.CommBuffer;
import io.verbs4j.collectives.Communicator;
import io.verbs4j.collectives.CommunicatorContext;
import io.verbs4j.collectives.launch.ThreadCluster;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SmokeTest
{
    @Test
    void allReduce()
    {
        for (final String transport : new String[]{"shm", "tcp"})
        {
            new ThreadCluster(3, Duration.ofSeconds(60)).run((rank, size, store) ->
            {
                try (Communicator comm = Communicator.create(new CommunicatorContext().rank(rank).size(size)
                    .store(store).transport(transport).name("smoke-" + transport)))
                {
                    System.out.println(transport + " rank " + rank + " model " + comm.costModel());
                    for (final Algorithm a : new Algorithm[]{Algorithm.RING, Algorithm.TREE,
                        Algorithm.RECURSIVE_DOUBLING, Algorithm.HALVING_DOUBLING})
                    {
                        final float[] data = new float[100_003];
                        for (int i = 0; i < data.length; i++)
                        {
                            data[i] = rank + i % 7;
                        }
                        final float[] out = new float[data.length];
                        comm.allReduce(CommBuffer.of(data), CommBuffer.of(out), data.length, DataType.FLOAT32,
                            ReduceOp.SUM, a);
                        for (int i = 0; i < data.length; i++)
                        {
                            assertEquals(3 + 3 * (i % 7), out[i], 0.0f, a + " at " + i);
                        }
                    }
                }
            });
        }
    }
}

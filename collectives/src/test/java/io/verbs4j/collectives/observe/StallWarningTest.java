// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.observe;

import java.time.Duration;
import java.util.List;

import io.verbs4j.collectives.CollectivesConfiguration;
import io.verbs4j.collectives.CommBuffer;
import io.verbs4j.collectives.Communicator;
import io.verbs4j.collectives.CommunicatorContext;
import io.verbs4j.collectives.launch.ThreadCluster;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A rank that is late is reported once as a stall, and the operation still completes (no timeout). */
class StallWarningTest
{
    @Test
    void aLateRankIsReportedOnceAndTheCallStillCompletes()
    {
        final LogCapture log = new LogCapture();
        try
        {
            new ThreadCluster(2, Duration.ofSeconds(60)).run((rank, size, store) ->
            {
                try (Communicator comm = Communicator.create(new CommunicatorContext().rank(rank).size(size)
                    .store(store).transport("shm").name("stall").calibrate(false)
                    .stallWarning(Duration.ofMillis(150)).opTimeout(Duration.ofSeconds(20))))
                {
                    final int[] value = {rank + 1};
                    if (1 == rank)
                    {
                        Thread.sleep(900); // a checkpoint
                    }
                    comm.allReduce(CommBuffer.of(value), CommBuffer.of(value), 1, DataType.INT32, ReduceOp.SUM);
                    assertEquals(3, value[0]);
                }
            });
        }
        finally
        {
            log.close();
        }
        final List<String> warnings = log.messages();
        // The allReduce's warnings only: the barrier of close() may warn too when a rank reaches it late.
        final long stalls = warnings.stream().filter(m -> m.contains("has waited") && m.contains(": allReduce #"))
            .count();
        assertEquals(1, stalls, String.valueOf(warnings));
        final String stall = warnings.stream().filter(m -> m.contains("has waited") && m.contains(": allReduce #"))
            .findFirst().orElseThrow();
        assertTrue(stall.startsWith("verbs4j: rank 0 of 2: allReduce #"), stall);
        assertTrue(stall.contains("for rank 1; still waiting (the operation times out after 20000 ms)"), stall);
    }

    @Test
    void theDefaultsSurviveARealJob()
    {
        assertEquals(600_000, CollectivesConfiguration.OP_TIMEOUT_DEFAULT_MS);
        assertEquals(60_000, CollectivesConfiguration.STALL_WARNING_DEFAULT_MS);
        final CommunicatorContext context = new CommunicatorContext();
        assertEquals(Duration.ofMinutes(10).toNanos(), context.opTimeoutNs());
        assertEquals(Duration.ofMinutes(1).toNanos(), context.stallWarningNs());
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.demo;

import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.verbs4j.collectives.rendezvous.EnvRendezvous;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class EnvAllReduceTest
{
    @Test
    void fourRanksFromTorchrunVariables() throws Exception
    {
        final int port;
        try (ServerSocket socket = new ServerSocket(0))
        {
            port = socket.getLocalPort();
        }
        final ExecutorService pool = Executors.newFixedThreadPool(4);
        try
        {
            final List<Future<Integer>> ranks = new ArrayList<>();
            for (int r = 0; r < 4; r++)
            {
                // rank 1 uses Open MPI's names, as under mpirun
                final Map<String, String> env = 1 == r ?
                    Map.of("MASTER_ADDR", "127.0.0.1", "MASTER_PORT", String.valueOf(port),
                        "OMPI_COMM_WORLD_RANK", "1", "OMPI_COMM_WORLD_SIZE", "4") :
                    Map.of("MASTER_ADDR", "127.0.0.1", "MASTER_PORT", String.valueOf(port),
                        "RANK", String.valueOf(r), "WORLD_SIZE", "4");
                ranks.add(pool.submit(() -> EnvAllReduce.run(env, 10_000, 2)));
            }
            for (final Future<Integer> rank : ranks)
            {
                assertEquals(0, rank.get(60, TimeUnit.SECONDS));
            }
        }
        finally
        {
            pool.shutdownNow();
        }
    }

    @Test
    void routeToLoopbackMasterIsLoopback()
    {
        assertEquals("127.0.0.1", EnvRendezvous.from(Map.of("MASTER_ADDR", "127.0.0.1", "MASTER_PORT", "29500",
            "RANK", "0", "WORLD_SIZE", "1")).localAddress());
    }
}

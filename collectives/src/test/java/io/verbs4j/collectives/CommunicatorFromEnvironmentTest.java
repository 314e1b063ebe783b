// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@link Communicator#fromEnvironment(Map, CommunicatorContext)}: ranks as threads of this JVM, each with the
 * variables a launcher would set (torchrun's, Open MPI's, an init-method URL), build a communicator in one call and
 * AllReduce; the host address comes from the route to the master; bad variables fail naming the variable.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class CommunicatorFromEnvironmentTest
{
    private static final int RANKS = 3;

    @Test
    void shouldBootstrapFromTorchrunVariablesAndListenOnTheRouteToTheMaster() throws Exception
    {
        // a non-loopback address of this machine as MASTER_ADDR: the route to it starts at that address, so the
        // host address must become it instead of the default 127.0.0.1
        final String master = nonLoopbackAddress();
        assumeTrue(null != master, "no non-loopback IPv4 address on this machine");
        assumeTrue(null == System.getProperty(CollectivesConfiguration.HOST_ADDRESS_PROP_NAME));
        final String port = Integer.toString(freePort());
        final List<String> hosts = runRanks((rank) -> Map.of("MASTER_ADDR", master, "MASTER_PORT", port,
            "RANK", Integer.toString(rank), "WORLD_SIZE", Integer.toString(RANKS)));
        assertEquals(List.of(master, master, master), hosts);
    }

    @Test
    void shouldBootstrapFromOpenMpiVariablesAndTcpUrl() throws Exception
    {
        final String url = "tcp://127.0.0.1:" + freePort();
        runRanks((rank) -> Map.of("VERBS4J_INIT_METHOD", url, "OMPI_COMM_WORLD_RANK", Integer.toString(rank),
            "OMPI_COMM_WORLD_SIZE", Integer.toString(RANKS)));
    }

    @Test
    void shouldBootstrapFromFileUrl(@TempDir final Path dir) throws Exception
    {
        final Path store = Files.createDirectory(dir.resolve("store"));
        runRanks((rank) -> Map.of("VERBS4J_INIT_METHOD", store.toUri().toString(), "RANK", Integer.toString(rank),
            "WORLD_SIZE", Integer.toString(RANKS)));
    }

    @Test
    void shouldNameTheMissingOrBadVariable()
    {
        final IllegalArgumentException noMaster = assertThrows(IllegalArgumentException.class,
            () -> Communicator.fromEnvironment(Map.of("RANK", "0", "WORLD_SIZE", "1"), new CommunicatorContext()));
        assertTrue(noMaster.getMessage().contains("MASTER_ADDR"), noMaster.getMessage());

        final IllegalArgumentException scheme = assertThrows(IllegalArgumentException.class,
            () -> Communicator.fromEnvironment(Map.of("VERBS4J_INIT_METHOD", "http://x:1", "RANK", "0",
                "WORLD_SIZE", "1"), new CommunicatorContext()));
        assertTrue(scheme.getMessage().contains("VERBS4J_INIT_METHOD"), scheme.getMessage());

        final IllegalArgumentException rank = assertThrows(IllegalArgumentException.class,
            () -> Communicator.fromEnvironment(Map.of("VERBS4J_INIT_METHOD", "file:///tmp/none", "RANK", "2",
                "WORLD_SIZE", "2"), new CommunicatorContext()));
        assertTrue(rank.getMessage().contains("outside [0, 2)"), rank.getMessage());

        final IllegalArgumentException size = assertThrows(IllegalArgumentException.class,
            () -> Communicator.fromEnvironment(Map.of("VERBS4J_INIT_METHOD", "file:///tmp/none", "RANK", "0"),
                new CommunicatorContext()));
        assertTrue(size.getMessage().contains("WORLD_SIZE"), size.getMessage());
    }

    /** Runs the ranks, each AllReducing its rank + 1; returns the host address each context ended up with. */
    private static List<String> runRanks(final IntFunction<Map<String, String>> envOfRank) throws Exception
    {
        final ExecutorService pool = Executors.newFixedThreadPool(RANKS);
        try
        {
            final List<Future<String>> results = new ArrayList<>();
            for (int r = 0; r < RANKS; r++)
            {
                final Map<String, String> env = new HashMap<>(envOfRank.apply(r));
                results.add(pool.submit(() ->
                {
                    final CommunicatorContext context = new CommunicatorContext().name("from-env");
                    try (Communicator comm = Communicator.fromEnvironment(env, context))
                    {
                        final int[] values = {comm.rank() + 1, 10 * (comm.rank() + 1)};
                        comm.allReduce(CommBuffer.of(values), CommBuffer.of(values), 2, DataType.INT32,
                            ReduceOp.SUM);
                        assertEquals(RANKS, comm.size());
                        assertArrayEquals(new int[]{6, 60}, values);
                        return context.hostAddress();
                    }
                }));
            }
            final List<String> hosts = new ArrayList<>();
            for (final Future<String> result : results)
            {
                hosts.add(result.get(90, TimeUnit.SECONDS));
            }
            return hosts;
        }
        finally
        {
            pool.shutdownNow();
        }
    }

    private static String nonLoopbackAddress() throws IOException
    {
        for (final NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces()))
        {
            if (nic.isUp() && !nic.isLoopback())
            {
                for (final InetAddress address : Collections.list(nic.getInetAddresses()))
                {
                    if (address instanceof Inet4Address && !address.isLoopbackAddress())
                    {
                        return address.getHostAddress();
                    }
                }
            }
        }
        return null;
    }

    private static int freePort() throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0))
        {
            return socket.getLocalPort();
        }
    }
}

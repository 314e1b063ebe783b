// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.rendezvous;

import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EnvRendezvousTest
{
    @Test
    void shouldParseTorchrunVariables()
    {
        final EnvRendezvous env = EnvRendezvous.from(Map.of(
            "MASTER_ADDR", "10.0.0.1", "MASTER_PORT", "29500", "RANK", "3", "WORLD_SIZE", "8"));
        assertEquals("10.0.0.1", env.masterAddr());
        assertEquals(29500, env.masterPort());
        assertEquals(3, env.rank());
        assertEquals(8, env.worldSize());
    }

    @Test
    void shouldFallBackToOpenMpiVariables()
    {
        final EnvRendezvous env = EnvRendezvous.from(Map.of(
            "MASTER_ADDR", "h", "MASTER_PORT", "1234", "OMPI_COMM_WORLD_RANK", "1", "OMPI_COMM_WORLD_SIZE", "2"));
        assertEquals(1, env.rank());
        assertEquals(2, env.worldSize());
    }

    @Test
    void shouldNameTheVariableThatIsWrong()
    {
        final Map<String, String> good = Map.of(
            "MASTER_ADDR", "h", "MASTER_PORT", "1234", "RANK", "0", "WORLD_SIZE", "2");
        assertMessage(without(good, "MASTER_ADDR"), "MASTER_ADDR");
        assertMessage(without(good, "MASTER_PORT"), "MASTER_PORT");
        assertMessage(without(good, "RANK"), "OMPI_COMM_WORLD_RANK");
        assertMessage(with(good, "MASTER_PORT", "70000"), "MASTER_PORT");
        assertMessage(with(good, "WORLD_SIZE", "two"), "WORLD_SIZE=two");
        assertMessage(with(good, "RANK", "2"), "outside [0, 2)");
        assertMessage(with(good, "WORLD_SIZE", "0"), "world size");
    }

    @Test
    void shouldConnectRankZeroAsHostAndOthersAsClients() throws Exception
    {
        final int port;
        try (ServerSocket probe = new ServerSocket(0))
        {
            port = probe.getLocalPort();
        }
        final Map<String, String> base = Map.of(
            "MASTER_ADDR", "127.0.0.1", "MASTER_PORT", Integer.toString(port), "WORLD_SIZE", "2");
        final Duration timeout = Duration.ofSeconds(10);
        // Rank 1 starts first: it must retry until rank 0's server is up.
        final CompletableFuture<byte[]> rank1 = CompletableFuture.supplyAsync(() ->
        {
            try (TcpStore store = EnvRendezvous.from(with(base, "RANK", "1")).connect(timeout))
            {
                store.set("rank1", AbstractRendezvousStoreTest.bytes("one"));
                return store.get("rank0", timeout);
            }
        });
        Thread.sleep(100);
        try (TcpStore store = EnvRendezvous.from(with(base, "RANK", "0")).connect(timeout))
        {
            assertTrue(store.serverPort() == port);
            store.set("rank0", AbstractRendezvousStoreTest.bytes("zero"));
            assertArrayEquals(AbstractRendezvousStoreTest.bytes("one"), store.get("rank1", timeout));
            assertArrayEquals(AbstractRendezvousStoreTest.bytes("zero"), rank1.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void shouldListenOnlyWhereMasterAddrPoints() throws Exception
    {
        final int port = freePort();
        final Map<String, String> env = Map.of(
            "MASTER_ADDR", "127.0.0.1", "MASTER_PORT", Integer.toString(port), "RANK", "0", "WORLD_SIZE", "1");
        try (TcpStore ignored = EnvRendezvous.from(env).connect(Duration.ofSeconds(10)))
        {
            final String listening = Files.readString(Path.of("/proc/net/tcp")) +
                Files.readString(Path.of("/proc/net/tcp6"));
            // address:port columns end in 0100007F for 127.0.0.1 (IPv4 or IPv4-mapped), in 00000000 for any
            final String portHex = String.format(":%04X ", port);
            assertTrue(listening.contains("0100007F" + portHex), "listens on loopback:\n" + listening);
            assertFalse(listening.contains("00000000" + portHex), "must not listen on every interface");
        }
    }

    @Test
    void shouldSayWhatToSetWhenRankZeroCannotListenOnMasterAddr()
    {
        // 192.0.2.1 (TEST-NET-1) is never an address of this machine.
        final Map<String, String> env = Map.of(
            "MASTER_ADDR", "192.0.2.1", "MASTER_PORT", Integer.toString(freePort()), "RANK", "0", "WORLD_SIZE", "1");
        final RendezvousException ex = assertThrows(RendezvousException.class,
            () -> EnvRendezvous.from(env).connect(Duration.ofSeconds(1)).close());
        assertTrue(ex.getMessage().contains(EnvRendezvous.STORE_BIND), ex.getMessage());
    }

    @Test
    void shouldListenWhereStoreBindSays() throws Exception
    {
        final int port = freePort();
        final Map<String, String> env = Map.of("MASTER_ADDR", "192.0.2.1", EnvRendezvous.STORE_BIND, "127.0.0.1",
            "MASTER_PORT", Integer.toString(port), "RANK", "0", "WORLD_SIZE", "1");
        final EnvRendezvous rendezvous = EnvRendezvous.from(env);
        assertEquals("127.0.0.1", rendezvous.storeBind());
        try (TcpStore store = rendezvous.connect(Duration.ofSeconds(10)))
        {
            assertEquals(port, store.serverPort());
        }
    }

    private static int freePort()
    {
        try (ServerSocket probe = new ServerSocket(0))
        {
            return probe.getLocalPort();
        }
        catch (final java.io.IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private static void assertMessage(final Map<String, String> env, final String fragment)
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> EnvRendezvous.from(env));
        assertTrue(ex.getMessage().contains(fragment), ex.getMessage());
    }

    private static Map<String, String> with(final Map<String, String> base, final String key, final String value)
    {
        final Map<String, String> copy = new HashMap<>(base);
        copy.put(key, value);
        return copy;
    }

    private static Map<String, String> without(final Map<String, String> base, final String key)
    {
        final Map<String, String> copy = new HashMap<>(base);
        copy.remove(key);
        return copy;
    }
}

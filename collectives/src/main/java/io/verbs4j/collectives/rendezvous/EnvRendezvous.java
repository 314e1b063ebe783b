// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.rendezvous;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;

/**
 * Reads a rank's place in the job from environment variables the torchrun way and opens the matching
 * {@link TcpStore}: rank 0 hosts the server on {@code MASTER_ADDR:MASTER_PORT}, every rank connects there.
 * <p>
 * Unlike PyTorch, rank 0 does not listen on all interfaces: it binds the address {@code MASTER_ADDR} resolves
 * to, so nothing listens on a network it was not pointed at ({@code MASTER_ADDR=127.0.0.1} stays on loopback).
 * Where that address is not one of rank 0's own (NAT, or a host name that resolves to 127.0.1.1 locally but to
 * the real address elsewhere), set {@value #STORE_BIND} on rank 0 to the address to listen on ({@code 0.0.0.0}
 * for all).
 *
 * <p>Variables: {@value #MASTER_ADDR}, {@value #MASTER_PORT}, {@value #RANK} (else {@value #OMPI_RANK}),
 * {@value #WORLD_SIZE} (else {@value #OMPI_SIZE}), optionally {@value #STORE_BIND}. The environment is passed in
 * as a map so tests and embedding engines need not touch the process environment.
 *
 * <pre>{@code
 * EnvRendezvous env = EnvRendezvous.from(System.getenv());
 * try (RendezvousStore store = env.connect(RendezvousStore.DEFAULT_TIMEOUT)) { ... }
 * }</pre>
 */
public final class EnvRendezvous
{
    /** Host name or address of rank 0's store server. */
    public static final String MASTER_ADDR = "MASTER_ADDR";
    /** Port of rank 0's store server. */
    public static final String MASTER_PORT = "MASTER_PORT";
    /** This process's rank. */
    public static final String RANK = "RANK";
    /** Number of ranks. */
    public static final String WORLD_SIZE = "WORLD_SIZE";
    /** Open MPI's rank variable, used when {@value #RANK} is absent. */
    public static final String OMPI_RANK = "OMPI_COMM_WORLD_RANK";
    /** Open MPI's size variable, used when {@value #WORLD_SIZE} is absent. */
    public static final String OMPI_SIZE = "OMPI_COMM_WORLD_SIZE";
    /** Address rank 0's store server listens on, when it must differ from {@value #MASTER_ADDR}. */
    public static final String STORE_BIND = "VERBS4J_STORE_BIND";

    private static final String LOOPBACK = "127.0.0.1";

    private final String masterAddr;
    private final String storeBind;
    private final int masterPort;
    private final int rank;
    private final int worldSize;

    private EnvRendezvous(
        final String masterAddr, final String storeBind, final int masterPort, final int rank, final int worldSize)
    {
        this.masterAddr = masterAddr;
        this.storeBind = storeBind;
        this.masterPort = masterPort;
        this.rank = rank;
        this.worldSize = worldSize;
    }

    /**
     * Parses and validates the variables.
     *
     * @param env the environment, e.g. {@code System.getenv()}.
     * @return the parsed settings.
     * @throws IllegalArgumentException naming the variable that is missing or malformed, or if the rank is not in
     *                                  {@code [0, worldSize)}.
     */
    public static EnvRendezvous from(final Map<String, String> env)
    {
        if (null == env)
        {
            throw new IllegalArgumentException("environment map must not be null");
        }
        final String addr = env.get(MASTER_ADDR);
        if (null == addr || addr.isBlank())
        {
            throw new IllegalArgumentException(MASTER_ADDR + " is not set; set it to the host of rank 0 " +
                "(e.g. MASTER_ADDR=127.0.0.1 for one machine)");
        }
        final int port = parseInt(env, MASTER_PORT, null);
        if (port < 1 || port > 65535)
        {
            throw new IllegalArgumentException(MASTER_PORT + "=" + port + " is not a TCP port (1..65535)");
        }
        final int size = parseInt(env, WORLD_SIZE, OMPI_SIZE);
        if (size < 1)
        {
            throw new IllegalArgumentException("world size must be >= 1 but " + WORLD_SIZE + "/" + OMPI_SIZE +
                " gave " + size);
        }
        final int rank = parseInt(env, RANK, OMPI_RANK);
        if (rank < 0 || rank >= size)
        {
            throw new IllegalArgumentException("rank " + rank + " is outside [0, " + size + "); check " + RANK +
                " and " + WORLD_SIZE);
        }
        final String bind = env.get(STORE_BIND);
        return new EnvRendezvous(addr.trim(), null == bind || bind.isBlank() ? addr.trim() : bind.trim(), port, rank,
            size);
    }

    /**
     * Opens the store: rank 0 starts the server and connects to it, the others connect (retrying until rank 0
     * is up or the timeout passes).
     *
     * @param timeout how long to wait for the server, positive.
     * @return an open store; closing it on rank 0 stops the server.
     * @throws RendezvousException on rank 0, if the server cannot listen on the bind address (saying which).
     */
    public TcpStore connect(final Duration timeout)
    {
        if (0 == rank)
        {
            final InetSocketAddress bind = new InetSocketAddress(storeBind, masterPort);
            if (bind.isUnresolved())
            {
                throw new RendezvousException("rank 0 cannot resolve " + storeBind + " to listen on (" +
                    (storeBind.equals(masterAddr) ? MASTER_ADDR : STORE_BIND) + ")");
            }
            try
            {
                return TcpStore.host(bind, timeout);
            }
            catch (final RendezvousTimeoutException ex)
            {
                throw ex;
            }
            catch (final RendezvousException ex)
            {
                throw new RendezvousException(ex.getMessage() + "; rank 0 listens on the address " + MASTER_ADDR +
                    " resolves to, which must be one of its own: set " + STORE_BIND + " on rank 0 to the address " +
                    "to listen on (0.0.0.0 for every interface)", ex);
            }
        }
        return TcpStore.connect(new InetSocketAddress(masterAddr, masterPort), timeout);
    }

    /**
     * The local address the kernel would use to reach {@code MASTER_ADDR} (a UDP socket is connected, no packet is
     * sent): the address this rank's tcp links should listen on so that ranks on other hosts reach it, the way
     * torchrun and NCCL pick the interface towards the master. Loopback when there is no route.
     *
     * @return an IP address literal.
     */
    public String localAddress()
    {
        try (DatagramSocket probe = new DatagramSocket())
        {
            probe.connect(new InetSocketAddress(masterAddr, masterPort));
            final InetAddress local = probe.getLocalAddress();
            return null == local || local.isAnyLocalAddress() ? LOOPBACK : local.getHostAddress();
        }
        catch (final IOException | RuntimeException ex)
        {
            return LOOPBACK;
        }
    }

    /**
     * Host of rank 0's server.
     *
     * @return the value of MASTER_ADDR.
     */
    public String masterAddr()
    {
        return masterAddr;
    }

    /**
     * Address rank 0's server listens on.
     *
     * @return {@value #STORE_BIND} if set, else {@value #MASTER_ADDR}.
     */
    public String storeBind()
    {
        return storeBind;
    }

    /**
     * Port of rank 0's server.
     *
     * @return the value of MASTER_PORT.
     */
    public int masterPort()
    {
        return masterPort;
    }

    /**
     * This process's rank.
     *
     * @return a rank in {@code [0, worldSize())}.
     */
    public int rank()
    {
        return rank;
    }

    /**
     * Number of ranks.
     *
     * @return the world size, at least 1.
     */
    public int worldSize()
    {
        return worldSize;
    }

    private static int parseInt(final Map<String, String> env, final String name, final String fallback)
    {
        String used = name;
        String text = env.get(name);
        if ((null == text || text.isBlank()) && null != fallback)
        {
            used = fallback;
            text = env.get(fallback);
        }
        if (null == text || text.isBlank())
        {
            throw new IllegalArgumentException(name + (null == fallback ? "" : " (or " + fallback + ")") +
                " is not set; launch with torchrun-style variables or use LoopbackCluster");
        }
        try
        {
            return Integer.parseInt(text.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(used + "=" + text + " is not an integer", ex);
        }
    }
}

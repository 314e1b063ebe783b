// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.run;

import io.verbs4j.bench.baseline.MemcpyTransport;
import io.verbs4j.bench.baseline.NettyTransport;
import io.verbs4j.bench.baseline.NioTransport;
import io.verbs4j.bench.baseline.ShmCacheLineTransport;
import io.verbs4j.bench.baseline.ShmRingTransport;
import io.verbs4j.bench.baseline.SocketTransport;
import io.verbs4j.bench.spi.TransportUnderTest;
import io.verbs4j.bench.verbs.VerbsOperation;
import io.verbs4j.bench.verbs.VerbsTransport;

import java.util.ArrayList;
import java.util.List;

/**
 * The transports the perftest tool measures, in report order: name (for {@code -T} and the reports), what is
 * measured (the {@code --list} and banner line) and the transport. A fixed list, so a table rather than a registry;
 * both peers use it, so a name the client sends always means the same transport on the server. Transports hold no
 * per-session state (see {@link TransportUnderTest}), so one instance per row serves every session.
 */
public enum PerftestTransport
{
    /** verbs4j shm, RDMA WRITE. */
    SHM_WRITE("shm-write", verbs("shm", VerbsOperation.WRITE), new VerbsTransport("shm", VerbsOperation.WRITE)),
    /** verbs4j shm, RDMA READ. */
    SHM_READ("shm-read", verbs("shm", VerbsOperation.READ), new VerbsTransport("shm", VerbsOperation.READ)),
    /** verbs4j shm, SEND/RECV. */
    SHM_SEND("shm-send", verbs("shm", VerbsOperation.SEND), new VerbsTransport("shm", VerbsOperation.SEND)),
    /** verbs4j shm, FETCH_AND_ADD. */
    SHM_ATOMIC("shm-atomic", verbs("shm", VerbsOperation.FETCH_AND_ADD),
        new VerbsTransport("shm", VerbsOperation.FETCH_AND_ADD)),
    /** verbs4j shm, CMP_AND_SWP. */
    SHM_ATOMIC_CAS("shm-atomic-cas", verbs("shm", VerbsOperation.CMP_AND_SWP),
        new VerbsTransport("shm", VerbsOperation.CMP_AND_SWP)),
    /** verbs4j tcp, RDMA WRITE. */
    TCP_WRITE("tcp-write", verbs("tcp", VerbsOperation.WRITE), new VerbsTransport("tcp", VerbsOperation.WRITE)),
    /** verbs4j tcp, RDMA READ. */
    TCP_READ("tcp-read", verbs("tcp", VerbsOperation.READ), new VerbsTransport("tcp", VerbsOperation.READ)),
    /** verbs4j tcp, SEND/RECV. */
    TCP_SEND("tcp-send", verbs("tcp", VerbsOperation.SEND), new VerbsTransport("tcp", VerbsOperation.SEND)),
    /** verbs4j tcp, FETCH_AND_ADD. */
    TCP_ATOMIC("tcp-atomic", verbs("tcp", VerbsOperation.FETCH_AND_ADD),
        new VerbsTransport("tcp", VerbsOperation.FETCH_AND_ADD)),
    /** verbs4j tcp, CMP_AND_SWP. */
    TCP_ATOMIC_CAS("tcp-atomic-cas", verbs("tcp", VerbsOperation.CMP_AND_SWP),
        new VerbsTransport("tcp", VerbsOperation.CMP_AND_SWP)),
    /** Baseline: blocking {@code java.net.Socket}. */
    SOCKET("socket", "java.net.Socket streams, TCP_NODELAY, blocking, byte[] buffers", new SocketTransport()),
    /** Baseline: blocking {@code SocketChannel}. */
    NIO("nio", "SocketChannel blocking, direct ByteBuffer, TCP_NODELAY", new NioTransport(false)),
    /** Baseline: non-blocking {@code SocketChannel}, polled. */
    NIO_POLL("nio-poll",
        "SocketChannel non-blocking, polled with the idle strategy (--busy-poll: pure busy-poll), direct buffer",
        new NioTransport(true)),
    /** Baseline: plain Netty; the description names the event loop found at run time (epoll or NIO). */
    NETTY("netty", null, new NettyTransport())
    {
        @Override
        public String description()
        {
            return NettyTransport.description();
        }
    },
    /** Baseline: an 8-byte word bounced through a shared mapping. */
    SHM_CACHELINE("shm-cacheline",
        "raw cache-line ping-pong of an 8-byte word through a /dev/shm mapping (same host)",
        new ShmCacheLineTransport()),
    /** Baseline: Agrona's one-to-one ring buffer in a shared mapping, a copy in and a copy out. */
    SHM_MEMCPY("shm-memcpy",
        "two processes, Agrona OneToOneRingBuffer in a /dev/shm mapping, copy in and out (2 copies per message, " +
            "same host)",
        new ShmRingTransport()),
    /** Baseline: in-process memory copy, the ceiling of any copy-based transport. */
    MEMCPY("memcpy",
        "single-thread Unsafe.copyMemory between two off-heap buffers, in-process (bytes copied per second)",
        new MemcpyTransport());

    private final String transportName;
    private final String description;
    private final TransportUnderTest instance;

    PerftestTransport(final String transportName, final String description, final TransportUnderTest instance)
    {
        this.transportName = transportName;
        this.description = description;
        this.instance = instance;
    }

    /**
     * The name used with {@code -T/--transport}, in reports and on the wire to the server.
     *
     * @return a short lower-case name without spaces or commas, e.g. {@code shm-cacheline}.
     */
    public String transportName()
    {
        return transportName;
    }

    /**
     * One line saying what is measured, printed in the banner and by {@code --list}.
     *
     * @return the description.
     */
    public String description()
    {
        return description;
    }

    /**
     * The transport.
     *
     * @return the one instance of this row.
     */
    public TransportUnderTest instance()
    {
        return instance;
    }

    /**
     * Looks a transport up by its {@link #transportName()}.
     *
     * @param name the name.
     * @return the entry, or {@code null} if no transport has that name.
     */
    public static PerftestTransport find(final String name)
    {
        for (final PerftestTransport entry : values())
        {
            if (entry.transportName.equals(name))
            {
                return entry;
            }
        }
        return null;
    }

    /**
     * All names, in report order, for messages naming the known transports.
     *
     * @return the names.
     */
    public static List<String> names()
    {
        final List<String> names = new ArrayList<>();
        for (final PerftestTransport entry : values())
        {
            names.add(entry.transportName);
        }
        return List.copyOf(names);
    }

    private static String verbs(final String provider, final VerbsOperation operation)
    {
        return "verbs4j " + provider + " provider, " + operation.title() + " over one RC queue pair";
    }
}

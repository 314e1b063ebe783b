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
import io.verbs4j.bench.verbs.VerbsTransport;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The transports the perftest tool knows, by name, in report order; both peers must have the same registry.
 */
public final class TransportRegistry
{
    private final Map<String, TransportUnderTest> byName = new LinkedHashMap<>();

    /**
     * A registry with the given transports.
     *
     * @param transports the transports; names must be unique.
     */
    public TransportRegistry(final List<TransportUnderTest> transports)
    {
        for (final TransportUnderTest transport : transports)
        {
            if (null != byName.put(transport.name(), transport))
            {
                throw new IllegalArgumentException("duplicate transport name " + transport.name());
            }
        }
    }

    /**
     * The standard registry: the verbs transports of the shm and tcp providers ({@code shm-write}, {@code shm-read},
     * {@code shm-send}, {@code shm-atomic}, {@code shm-atomic-cas}, the same for tcp), then all baselines.
     *
     * @return a new registry.
     */
    public static TransportRegistry standard()
    {
        final List<TransportUnderTest> transports = new ArrayList<>();
        transports.addAll(VerbsTransport.all("shm"));
        transports.addAll(VerbsTransport.all("tcp"));
        transports.add(new SocketTransport());
        transports.add(new NioTransport(false));
        transports.add(new NioTransport(true));
        transports.add(new NettyTransport());
        transports.add(new ShmCacheLineTransport());
        transports.add(new ShmRingTransport());
        transports.add(new MemcpyTransport());
        return new TransportRegistry(transports);
    }

    /**
     * Looks a transport up.
     *
     * @param name its name.
     * @return the transport, or {@code null} if unknown.
     */
    public TransportUnderTest find(final String name)
    {
        return byName.get(name);
    }

    /**
     * All transports, in report order.
     *
     * @return an unmodifiable list.
     */
    public List<TransportUnderTest> all()
    {
        return Collections.unmodifiableList(new ArrayList<>(byName.values()));
    }

    /**
     * All names, in report order.
     *
     * @return an unmodifiable list.
     */
    public List<String> names()
    {
        return List.copyOf(byName.keySet());
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import io.verbs4j.collectives.rendezvous.EnvRendezvous;
import io.verbs4j.collectives.rendezvous.FileStore;
import io.verbs4j.collectives.rendezvous.RendezvousStore;

/**
 * What {@link Communicator#fromEnvironment()} reads: rank, size and the rendezvous store from the launcher's
 * variables (torchrun, Open MPI, or an init-method URL), and the host address from the route to the master.
 * Setup path only.
 */
final class EnvironmentInit
{
    /** Init-method URL: {@code env://} (default), {@code tcp://host:port} or {@code file:///directory}. */
    static final String INIT_METHOD = "VERBS4J_INIT_METHOD";

    private EnvironmentInit()
    {
    }

    /** The store to use and the settings it implies, before the communicator exists. */
    static final class Plan
    {
        final int rank;
        final int size;
        final EnvRendezvous tcp;
        final Path directory;

        private Plan(final int rank, final int size, final EnvRendezvous tcp, final Path directory)
        {
            this.rank = rank;
            this.size = size;
            this.tcp = tcp;
            this.directory = directory;
        }

        /**
         * Opens the store: on {@code env://} and {@code tcp://} rank 0 hosts a TCP store and the others connect;
         * {@code file://} uses a directory every rank can see.
         */
        RendezvousStore open()
        {
            if (null != tcp)
            {
                return tcp.connect(RendezvousStore.DEFAULT_TIMEOUT);
            }
            return new FileStore(directory);
        }
    }

    static Plan plan(final Map<String, String> env)
    {
        if (null == env)
        {
            throw new IllegalArgumentException("environment map must not be null");
        }
        final String method = trimmed(env.get(INIT_METHOD));
        if (null == method || "env://".equals(method))
        {
            final EnvRendezvous tcp = EnvRendezvous.from(env);
            return new Plan(tcp.rank(), tcp.worldSize(), tcp, null);
        }
        final URI uri;
        try
        {
            uri = new URI(method);
        }
        catch (final URISyntaxException ex)
        {
            throw new IllegalArgumentException(INIT_METHOD + "=" + method + " is not a URL: " + ex.getMessage(), ex);
        }
        if ("tcp".equals(uri.getScheme()))
        {
            if (null == uri.getHost() || uri.getPort() < 1)
            {
                throw new IllegalArgumentException(INIT_METHOD + "=" + method + " needs a host and a port: " +
                    "tcp://<address of rank 0>:<port>");
            }
            final Map<String, String> copy = new HashMap<>(env);
            copy.put(EnvRendezvous.MASTER_ADDR, uri.getHost());
            copy.put(EnvRendezvous.MASTER_PORT, Integer.toString(uri.getPort()));
            final EnvRendezvous tcp = EnvRendezvous.from(copy);
            return new Plan(tcp.rank(), tcp.worldSize(), tcp, null);
        }
        if ("file".equals(uri.getScheme()))
        {
            if (null == uri.getPath() || uri.getPath().isEmpty())
            {
                throw new IllegalArgumentException(INIT_METHOD + "=" + method + " needs a path: " +
                    "file:///shared/directory");
            }
            final int size = integer(env, EnvRendezvous.WORLD_SIZE, EnvRendezvous.OMPI_SIZE);
            final int rank = integer(env, EnvRendezvous.RANK, EnvRendezvous.OMPI_RANK);
            if (size < 1 || rank < 0 || rank >= size)
            {
                throw new IllegalArgumentException("rank " + rank + " is outside [0, " + size + "); check " +
                    EnvRendezvous.RANK + " and " + EnvRendezvous.WORLD_SIZE);
            }
            return new Plan(rank, size, null, Path.of(uri.getPath()));
        }
        throw new IllegalArgumentException(INIT_METHOD + "=" + method + ": unknown scheme; use env://, " +
            "tcp://host:port or file:///directory");
    }

    /**
     * Fills the context: rank, size, and the host address from the route to the master ({@code env://},
     * {@code tcp://}) unless {@value CollectivesConfiguration#HOST_ADDRESS_PROP_NAME} is set or the caller chose
     * an address other than the default.
     */
    static void apply(final Plan plan, final CommunicatorContext context)
    {
        context.rank(plan.rank).size(plan.size);
        if (null != plan.tcp && null == System.getProperty(CollectivesConfiguration.HOST_ADDRESS_PROP_NAME) &&
            CollectivesConfiguration.HOST_ADDRESS_DEFAULT.equals(context.hostAddress()))
        {
            context.hostAddress(plan.tcp.localAddress());
        }
    }

    private static int integer(final Map<String, String> env, final String name, final String fallback)
    {
        String used = name;
        String text = trimmed(env.get(name));
        if (null == text)
        {
            used = fallback;
            text = trimmed(env.get(fallback));
        }
        if (null == text)
        {
            throw new IllegalArgumentException(name + " (or " + fallback + ") is not set; launch with torchrun " +
                "or mpirun, or set it");
        }
        try
        {
            return Integer.parseInt(text);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(used + "=" + text + " is not an integer", ex);
        }
    }

    private static String trimmed(final String value)
    {
        return null == value || value.isBlank() ? null : value.trim();
    }
}

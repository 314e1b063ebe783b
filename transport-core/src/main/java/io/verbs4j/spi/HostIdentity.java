// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Identifies the "host" a process runs on, so that peers can tell whether they may use shared memory (shm) or must
 * go through the network (tcp). The id is
 * <pre>
 *   &lt;kernel boot id&gt;/&lt;network namespace&gt;      e.g. 3f2c...-9a1b/net:[4026531840]
 * </pre>
 * so two processes are one host only if they run on the same kernel boot <em>and</em> in the same network
 * namespace.
 *
 * <p>Why the network namespace: processes in different network namespaces of one kernel usually belong to different
 * containers, which mostly have their own /dev/shm (Docker's default), so shm between them would fail; and where
 * they do share /dev/shm (bare {@code ip netns}, as the multi-host system tests build), treating them as one host
 * would make the traffic of a "cross-host" communicator bypass the network those namespaces model. Processes that
 * share a network namespace (the containers of one Kubernetes pod, the ranks of one machine) keep using shm. The
 * cost: containers with separate network namespaces that do share /dev/shm (e.g. {@code --ipc=host}) use tcp; set
 * the same {@value #HOST_ID_PROP_NAME} (or {@value #HOST_ID_ENV_NAME}) in them to get shm back.
 *
 * <p>Overrides, first match wins: the system property {@value #HOST_ID_PROP_NAME}, then the environment variable
 * {@value #HOST_ID_ENV_NAME} (tests use them to pretend to be separate hosts, launchers to group processes).
 */
public final class HostIdentity
{
    /** System property overriding the host id. */
    public static final String HOST_ID_PROP_NAME = "verbs4j.host.id";
    /** Environment variable overriding the host id when the system property is not set. */
    public static final String HOST_ID_ENV_NAME = "VERBS4J_HOST_ID";

    private static final String HOST_ID = compute(Path.of("/proc/sys/kernel/random/boot_id"),
        Path.of("/proc/self/ns/net"));

    private HostIdentity()
    {
    }

    /** @return this process's host id: the override if one is set, else boot id and network namespace. */
    public static String hostId()
    {
        final String override = System.getProperty(HOST_ID_PROP_NAME);
        if (null != override)
        {
            return override;
        }
        final String env = System.getenv(HOST_ID_ENV_NAME);
        return null != env && !env.isBlank() ? env.trim() : HOST_ID;
    }

    /**
     * @param bootId     the kernel's boot id file.
     * @param netNsLink  the link naming this process's network namespace.
     * @return the id computed from them: {@code bootId/netns}; the host name replaces the boot id where it cannot
     *         be read, and the namespace part is left out where the link cannot be read.
     */
    static String compute(final Path bootId, final Path netNsLink)
    {
        String machine;
        try
        {
            machine = Files.isReadable(bootId) ? Files.readString(bootId, StandardCharsets.US_ASCII).trim() :
                InetAddress.getLocalHost().getHostName();
        }
        catch (final IOException ex)
        {
            machine = "unknown-host";
        }
        try
        {
            return machine + "/" + Files.readSymbolicLink(netNsLink);
        }
        catch (final IOException | UnsupportedOperationException | SecurityException ex)
        {
            return machine;
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import io.verbs4j.Device;
import io.verbs4j.config.DeviceContext;

/**
 * The provider SPI: a transport module registers one implementation in
 * {@code META-INF/services/io.verbs4j.spi.TransportProvider}; {@link io.verbs4j.Verbs} finds it by name.
 * Implementations are stateless factories.
 */
public interface TransportProvider
{
    /** @return the name devices are opened by ({@code shm}, {@code tcp}). */
    String name();

    /** @return preference when several providers can reach a peer; higher wins (shm above tcp). */
    int priority();

    /** @return null when usable here, else why not (e.g. "/dev/shm is not writable"). */
    String unavailableReason();

    /**
     * @param context concluded settings.
     * @return an opened device.
     */
    Device open(DeviceContext context);

    /**
     * Whether this provider can connect a process on {@code localHost} to one on {@code peerHost}; used by layers
     * that pick a provider per peer (collectives), so that they never name a provider.
     *
     * @param localHost this process's {@link HostIdentity#hostId()}.
     * @param peerHost  the peer's {@link HostIdentity#hostId()}.
     * @return true when reachable.
     */
    boolean canReach(String localHost, String peerHost);

    /**
     * The endpoint a process should listen on for peers of this provider.
     *
     * @param hostAddress the address peers use to reach this host (ignored by providers that do not need it).
     * @param uniqueName  a name unique on this host for the listener (e.g. job and rank).
     * @return an endpoint URI for {@link io.verbs4j.ConnectionManager#listen(String)}.
     */
    String listenEndpoint(String hostAddress, String uniqueName);
}

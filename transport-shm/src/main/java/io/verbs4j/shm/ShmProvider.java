// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import io.verbs4j.Device;
import io.verbs4j.config.DeviceContext;
import io.verbs4j.spi.TransportProvider;

/**
 * The shm transport provider ({@code Verbs.open("shm")}): reaches processes on the same host (same kernel boot),
 * preferred over tcp there.
 */
public final class ShmProvider implements TransportProvider
{
    /** Provider name. */
    public static final String NAME = "shm";
    /** Priority: above tcp. */
    public static final int PRIORITY = 100;

    /** {@inheritDoc} */
    public String name()
    {
        return NAME;
    }

    /** {@inheritDoc} */
    public int priority()
    {
        return PRIORITY;
    }

    /** {@inheritDoc} */
    public String unavailableReason()
    {
        return ShmConfiguration.unavailableReason();
    }

    /** {@inheritDoc} */
    public Device open(final DeviceContext context)
    {
        return new ShmDevice(context.conclude());
    }

    /** {@inheritDoc} */
    public boolean canReach(final String localHost, final String peerHost)
    {
        return null != localHost && localHost.equals(peerHost);
    }

    /** {@inheritDoc} */
    public String listenEndpoint(final String hostAddress, final String uniqueName)
    {
        return "shm://" + uniqueName;
    }
}

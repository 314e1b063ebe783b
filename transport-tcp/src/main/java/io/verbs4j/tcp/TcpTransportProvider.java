// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import io.verbs4j.Device;
import io.verbs4j.config.DeviceContext;
import io.verbs4j.spi.TransportProvider;

/**
 * The {@code tcp} provider: the verbs over TCP sockets (Netty, epoll where available). Reaches every host; ranks
 * below shm so that peers on one host prefer shared memory.
 */
public final class TcpTransportProvider implements TransportProvider
{
    /** Provider name. */
    public static final String NAME = "tcp";
    /** Provider priority (shm ranks higher). */
    public static final int PRIORITY = 10;

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
        return null;
    }

    /** {@inheritDoc} */
    public Device open(final DeviceContext context)
    {
        return new TcpDevice(context);
    }

    /** {@inheritDoc} */
    public boolean canReach(final String localHost, final String peerHost)
    {
        return true;
    }

    /** {@inheritDoc} */
    public String listenEndpoint(final String hostAddress, final String uniqueName)
    {
        final String host = hostAddress.indexOf(':') >= 0 && !hostAddress.startsWith("[") ?
            "[" + hostAddress + "]" : hostAddress;
        return "tcp://" + host + ":0";
    }
}

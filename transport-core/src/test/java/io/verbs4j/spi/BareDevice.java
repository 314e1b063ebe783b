// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import java.nio.ByteBuffer;

import io.verbs4j.Capabilities;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.config.DeviceContext;

/**
 * A device with no transport, for tests of the shared code: its protection domains make queue pairs with the
 * factory given (or none) and no regions of their own; there is no progress and no connection manager.
 */
final class BareDevice extends AbstractDevice
{
    /** Makes the queue pairs of a {@link BareDevice}'s protection domains. */
    @FunctionalInterface
    interface QueuePairFactory
    {
        /**
         * @param pd       the domain.
         * @param config   validated attributes.
         * @param qpNumber the number.
         * @return the queue pair.
         */
        AbstractQueuePair create(AbstractProtectionDomain pd, QueuePairConfig config, int qpNumber);
    }

    private final QueuePairFactory queuePairs;

    /**
     * @param flags      capability flags besides MSG and RMA_WRITE.
     * @param queuePairs makes the queue pairs (null: creating one throws).
     */
    BareDevice(final int flags, final QueuePairFactory queuePairs)
    {
        super("bare", new Capabilities(Capabilities.MSG | Capabilities.RMA_WRITE | flags,
            1 << 20, 4, 64, 64, 1024, 1 << 20, 64), new DeviceContext());
        this.queuePairs = queuePairs;
    }

    /** @return a new protection domain of this device. */
    AbstractProtectionDomain domain()
    {
        return (AbstractProtectionDomain)allocateProtectionDomain();
    }

    protected AbstractProtectionDomain newProtectionDomain()
    {
        return new AbstractProtectionDomain(this)
        {
            protected AbstractMemoryRegion newAllocatedRegion(
                final long length, final int access, final int lkey, final int rkey)
            {
                throw new UnsupportedOperationException();
            }

            protected AbstractMemoryRegion newRegisteredRegion(
                final ByteBuffer buffer, final int access, final int lkey, final int rkey)
            {
                throw new UnsupportedOperationException();
            }

            protected AbstractQueuePair newQueuePair(final QueuePairConfig config, final int qpNumber)
            {
                if (null == queuePairs)
                {
                    throw new UnsupportedOperationException();
                }
                return queuePairs.create(this, config, qpNumber);
            }
        };
    }

    protected Progress progress()
    {
        return Progress.NONE;
    }

    protected void onClose()
    {
    }

    public io.verbs4j.ConnectionManager connectionManager()
    {
        throw new UnsupportedOperationException();
    }
}

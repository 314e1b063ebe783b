// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shmem;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import io.verbs4j.collectives.CollectivesConfiguration;
import io.verbs4j.collectives.CommunicatorContext;

/**
 * Settings of a {@link SymmetricHeap} beyond those of its world communicator: fluent setters, then
 * {@link #conclude()} validates and freezes (called by {@code SymmetricHeap.create}). Defaults come from
 * {@link CollectivesConfiguration}, so the {@code verbs4j.collectives.*} properties that set a communicator's timeouts
 * and transport set the heap's too; {@link #from(CommunicatorContext)} copies a context's values. Every PE must use
 * the same transport and staging geometry.
 */
public final class ShmemOptions
{
    /** Default number of staging slots per device (bounce buffers of the verbs path). */
    public static final int STAGING_SLOTS_DEFAULT = 32;
    /** Default staging slot size in bytes. */
    public static final int STAGING_SLOT_BYTES_DEFAULT = 64 * 1024;

    private long opTimeoutNs = CollectivesConfiguration.opTimeoutNs();
    private long peerTimeoutNs = CollectivesConfiguration.peerTimeoutNs();
    private long bootstrapTimeoutNs = CollectivesConfiguration.bootstrapTimeoutNs();
    private String transport = CollectivesConfiguration.transport();
    private String hostAddress = CollectivesConfiguration.hostAddress();
    private boolean deviceProgressThread = CollectivesConfiguration.deviceProgressThread();
    private long idleSpins = CollectivesConfiguration.idleSpins();
    private long idleYields = CollectivesConfiguration.idleYields();
    private long idleMinParkNs = CollectivesConfiguration.idleMinParkNs();
    private long idleMaxParkNs = CollectivesConfiguration.idleMaxParkNs();
    private boolean directAccess = true;
    private int stagingSlots = STAGING_SLOTS_DEFAULT;
    private int stagingSlotBytes = STAGING_SLOT_BYTES_DEFAULT;
    private final Map<String, String> deviceProperties = new HashMap<>();
    private boolean concluded;

    /**
     * @param context a communicator context (read, not changed).
     * @return options with its timeouts, transport, host address, progress and idle settings and device properties.
     */
    public static ShmemOptions from(final CommunicatorContext context)
    {
        final ShmemOptions options = new ShmemOptions();
        options.opTimeoutNs = context.opTimeoutNs();
        options.peerTimeoutNs = context.peerTimeoutNs();
        options.bootstrapTimeoutNs = context.bootstrapTimeoutNs();
        options.transport = context.transport();
        options.hostAddress = context.hostAddress();
        options.deviceProgressThread = context.deviceProgressThread();
        options.idleSpins = context.idleSpins();
        options.idleYields = context.idleYields();
        options.idleMinParkNs = context.idleMinParkNs();
        options.idleMaxParkNs = context.idleMaxParkNs();
        options.deviceProperties.putAll(context.deviceProperties());
        return options;
    }

    /**
     * @param timeout default limit of blocking calls that wait for peers (waits, quiet, blocking get and atomics).
     * @return this.
     */
    public ShmemOptions opTimeout(final Duration timeout)
    {
        checkOpen();
        opTimeoutNs = timeout.toNanos();
        return this;
    }

    /**
     * @param timeout silence after which the devices declare a peer dead (their queue pairs go to ERROR).
     * @return this.
     */
    public ShmemOptions peerTimeout(final Duration timeout)
    {
        checkOpen();
        peerTimeoutNs = timeout.toNanos();
        return this;
    }

    /**
     * @param timeout limit of the set-up exchanges and connections.
     * @return this.
     */
    public ShmemOptions bootstrapTimeout(final Duration timeout)
    {
        checkOpen();
        bootstrapTimeoutNs = timeout.toNanos();
        return this;
    }

    /**
     * @param transport provider to force ({@code shm}, {@code tcp}), or empty to choose per peer (shm on one host).
     * @return this.
     */
    public ShmemOptions transport(final String transport)
    {
        checkOpen();
        this.transport = null == transport ? "" : transport;
        return this;
    }

    /**
     * @param hostAddress address tcp listeners bind to.
     * @return this.
     */
    public ShmemOptions hostAddress(final String hostAddress)
    {
        checkOpen();
        this.hostAddress = hostAddress;
        return this;
    }

    /**
     * @param directAccess false to reach same-host PEs through RDMA verbs on their queue pairs instead of direct
     *                     load/store (for testing and comparing the paths; {@code ptr(pe)} is then null for them).
     * @return this.
     */
    public ShmemOptions directAccess(final boolean directAccess)
    {
        checkOpen();
        this.directAccess = directAccess;
        return this;
    }

    /**
     * @param slots     staging slots per device (bounces of unregistered buffers, atomic results).
     * @param slotBytes bytes per slot, a multiple of 8.
     * @return this.
     */
    public ShmemOptions staging(final int slots, final int slotBytes)
    {
        checkOpen();
        this.stagingSlots = slots;
        this.stagingSlotBytes = slotBytes;
        return this;
    }

    /**
     * @param spins     busy spins of a wait before it yields.
     * @param yields    yields before it parks.
     * @param minParkNs shortest park.
     * @param maxParkNs longest park.
     * @return this.
     */
    public ShmemOptions idle(final long spins, final long yields, final long minParkNs, final long maxParkNs)
    {
        checkOpen();
        idleSpins = spins;
        idleYields = yields;
        idleMinParkNs = minParkNs;
        idleMaxParkNs = maxParkNs;
        return this;
    }

    /**
     * @param name  a device property.
     * @param value its value.
     * @return this.
     */
    public ShmemOptions deviceProperty(final String name, final String value)
    {
        checkOpen();
        deviceProperties.put(name, value);
        return this;
    }

    /**
     * Validates and freezes.
     *
     * @return this.
     * @throws IllegalArgumentException naming the bad setting.
     */
    public ShmemOptions conclude()
    {
        if (concluded)
        {
            return this;
        }
        if (opTimeoutNs <= 0 || peerTimeoutNs <= 0 || bootstrapTimeoutNs <= 0)
        {
            throw new IllegalArgumentException("timeouts must be positive");
        }
        if (stagingSlots < 2 || stagingSlots > 0xFFFE || stagingSlotBytes < 64 || 0 != (stagingSlotBytes & 7))
        {
            throw new IllegalArgumentException("staging needs 2..65534 slots of at least 64 bytes, a multiple of 8; " +
                "got " + stagingSlots + " x " + stagingSlotBytes);
        }
        if ((long)stagingSlots * stagingSlotBytes > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("staging of " + stagingSlots + " x " + stagingSlotBytes +
                " bytes exceeds 2 GiB");
        }
        if (idleSpins < 0 || idleYields < 0 || idleMinParkNs < 1 || idleMaxParkNs < idleMinParkNs)
        {
            throw new IllegalArgumentException("idle settings need spins, yields >= 0 and 1 <= minPark <= maxPark");
        }
        concluded = true;
        return this;
    }

    /** @return default wait limit, ns. */
    public long opTimeoutNs()
    {
        return opTimeoutNs;
    }

    /** @return peer timeout, ns. */
    public long peerTimeoutNs()
    {
        return peerTimeoutNs;
    }

    /** @return bootstrap timeout, ns. */
    public long bootstrapTimeoutNs()
    {
        return bootstrapTimeoutNs;
    }

    /** @return forced provider, or empty. */
    public String transport()
    {
        return transport;
    }

    /** @return tcp bind address. */
    public String hostAddress()
    {
        return hostAddress;
    }

    /** @return whether devices run a progress thread. */
    public boolean deviceProgressThread()
    {
        return deviceProgressThread;
    }

    /** @return whether same-host PEs are reached by direct load/store where the provider allows it. */
    public boolean directAccess()
    {
        return directAccess;
    }

    /** @return staging slots per device. */
    public int stagingSlots()
    {
        return stagingSlots;
    }

    /** @return bytes per staging slot. */
    public int stagingSlotBytes()
    {
        return stagingSlotBytes;
    }

    /** @return spins before yielding. */
    public long idleSpins()
    {
        return idleSpins;
    }

    /** @return yields before parking. */
    public long idleYields()
    {
        return idleYields;
    }

    /** @return shortest park, ns. */
    public long idleMinParkNs()
    {
        return idleMinParkNs;
    }

    /** @return longest park, ns. */
    public long idleMaxParkNs()
    {
        return idleMaxParkNs;
    }

    /** @return device properties (read-only view). */
    public Map<String, String> deviceProperties()
    {
        return java.util.Collections.unmodifiableMap(deviceProperties);
    }

    private void checkOpen()
    {
        if (concluded)
        {
            throw new IllegalStateException("ShmemOptions are concluded (a heap was created with them)");
        }
    }
}

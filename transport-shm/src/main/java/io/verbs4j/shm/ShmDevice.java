// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.verbs4j.Capabilities;
import io.verbs4j.ConnectionManager;
import io.verbs4j.VerbsException;
import io.verbs4j.WcStatus;
import io.verbs4j.config.DeviceContext;
import io.verbs4j.config.ThreadingMode;
import io.verbs4j.shm.protocol.DeviceSegmentDescriptor;
import io.verbs4j.shm.protocol.RegionEntryDescriptor;
import io.verbs4j.shm.protocol.SegmentHeader;
import io.verbs4j.spi.AbstractDevice;
import io.verbs4j.spi.AbstractProtectionDomain;
import io.verbs4j.spi.MappedMemory;
import io.verbs4j.spi.Progress;
import io.verbs4j.spi.RegionMemory;
import io.verbs4j.stat.StatRegistry;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * An opened shm device: owns its device segment (header, heartbeat, shared region table), the progress agent, the
 * connection manager, the mappings of the peers' device segments and the list of connected queue pairs that
 * progress serves; and its {@link #counter(ShmCounter) counters}.
 */
public final class ShmDevice extends AbstractDevice
{
    /** Capability bits of the provider. */
    public static final int CAPABILITY_FLAGS = Capabilities.MSG | Capabilities.RMA_WRITE | Capabilities.RMA_READ |
        Capabilities.WRITE_IMM | Capabilities.ATOMIC | Capabilities.INLINE | Capabilities.ONE_SIDED_OFFLOAD |
        Capabilities.DIRECT_PEER_ACCESS | Capabilities.INJECT;
    /** Most SGEs per work request. */
    public static final int MAX_SGE = 16;
    /** Largest inline payload. */
    public static final int MAX_INLINE = 1024;
    /** Deepest queue. */
    public static final int MAX_QUEUE_DEPTH = 16384;
    /** Largest completion queue. */
    public static final int MAX_CQ_CAPACITY = 1 << 20;
    /** Largest region: 64 GiB. */
    public static final long MAX_REGION_LENGTH = 64L << 30;

    private static final System.Logger LOG = System.getLogger("io.verbs4j.shm");
    private static final ShmQueuePair[] NO_QPS = new ShmQueuePair[0];
    private static final AtomicInteger DEVICES = new AtomicInteger();
    /** How often progress looks for peers that closed or whose process is gone (between heartbeat checks). */
    private static final long EXIT_CHECK_INTERVAL_NS = 10_000_000L;
    /** Most progress rounds between two reads of the clock, while rounds are fast (see {@link #doProgress}). */
    static final int MAX_CLOCK_STRIDE = 32;
    /**
     * A stride of rounds that took less than this (rounds of under a microsecond on average) is fast: the next stride
     * is {@link #MAX_CLOCK_STRIDE} long; otherwise the clock is read every round.
     */
    static final long FAST_STRIDE_NS = MAX_CLOCK_STRIDE * 1_000L;

    private final ShmFiles files;
    private final long pid;
    private final long deviceId;
    private final int ringCapacity;
    private final int eagerLimit;
    private final int listenRingCapacity;
    private final long peerTimeoutNs;
    private final Path segmentFile;
    private final RegionMemory segmentMemory;
    private final UnsafeBuffer segment;
    private final int tableCapacity;
    private final int[] slotSeqs;
    private final int[] freeSlots;
    private int freeSlotCount;
    private final AtomicLong fileIds = new AtomicLong();
    private final ShmProgress progress;
    private final AgentRunner runner;
    private final ShmConnectionManager connectionManager;
    private final Map<String, ShmPeer> peers = new HashMap<>();
    private final ShmCounters counters = new ShmCounters();
    private final StatRegistry.Registration stat;
    private volatile ShmQueuePair[] active = NO_QPS;
    private volatile ShmPeer[] activePeers = new ShmPeer[0];
    private long heartbeat;
    private long nextHousekeepingNs;
    private long nextExitCheckNs;
    // Owned by the holder of the progress lock: rounds left before the clock is read, the stride, the last read.
    private int roundsToClock;
    private int clockStride = 1;
    private long lastClockNs;

    ShmDevice(final DeviceContext context)
    {
        super(ShmProvider.NAME, new Capabilities(CAPABILITY_FLAGS, Integer.MAX_VALUE, MAX_SGE, MAX_INLINE,
            MAX_QUEUE_DEPTH, MAX_CQ_CAPACITY, MAX_REGION_LENGTH, ShmConfiguration.MAX_PRIVATE_DATA_LENGTH), context);
        final Path dir = ShmConfiguration.dir(context);
        if (!Files.isDirectory(dir))
        {
            throw new VerbsException("shm directory " + dir + " does not exist (" + ShmConfiguration.DIR_PROP_NAME +
                ")");
        }
        files = new ShmFiles(dir);
        files.sweepDead();
        pid = ProcessHandle.current().pid();
        deviceId = ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE;
        ringCapacity = ShmConfiguration.ringCapacity(context);
        eagerLimit = ShmConfiguration.eagerLimit(context);
        listenRingCapacity = ShmConfiguration.listenRingCapacity(context);
        peerTimeoutNs = context.peerTimeoutNs();
        tableCapacity = ShmConfiguration.regionTableCapacity(context);
        slotSeqs = new int[tableCapacity];
        freeSlots = new int[tableCapacity];
        for (int i = 0; i < tableCapacity; i++)
        {
            freeSlots[i] = tableCapacity - 1 - i;
        }
        freeSlotCount = tableCapacity;
        segmentFile = files.deviceSegment(pid, deviceId);
        segmentMemory = MappedMemory.create(segmentFile, DeviceSegmentDescriptor.length(tableCapacity),
            ShmConfiguration.DIR_PROP_NAME);
        segment = new UnsafeBuffer(segmentMemory.addressOf(0), DeviceSegmentDescriptor.length(tableCapacity));
        segment.putInt(DeviceSegmentDescriptor.FLAGS_OFFSET,
            context.progressThread() ? DeviceSegmentDescriptor.FLAG_HEARTBEAT : 0);
        segment.putInt(DeviceSegmentDescriptor.TABLE_CAPACITY_OFFSET, tableCapacity);
        SegmentHeader.write(segment, SegmentHeader.MAGIC_DEVICE, pid, deviceId, ShmFiles.currentStartTimeMs());
        progress = new ShmProgress(this, ThreadingMode.DEDICATED == context.threadingMode());
        connectionManager = new ShmConnectionManager(this);
        if (context.progressThread())
        {
            runner = new AgentRunner(context.newIdleStrategy(), this::onAgentError, null, progress);
            AgentRunner.startOnThread(runner, runnable ->
            {
                final Thread thread = new Thread(runnable, progress.roleName());
                thread.setDaemon(true);
                return thread;
            });
        }
        else
        {
            runner = null;
        }
        stat = StatRegistry.register("shm device " + DEVICES.incrementAndGet(), counters.source());
    }

    /**
     * @param counter a counter.
     * @return its value now (the data-path counters summed over this device's queue pairs, closed ones included).
     */
    public long counter(final ShmCounter counter)
    {
        return counters.get(counter);
    }

    /** @return the counters, for this provider's classes. */
    ShmCounters counters()
    {
        return counters;
    }

    /** @return this process's id. */
    public long pid()
    {
        return pid;
    }

    /** @return the random id of this device (names its files). */
    public long deviceId()
    {
        return deviceId;
    }

    /** @return the file naming and sweeping helper. */
    public ShmFiles files()
    {
        return files;
    }

    /** @return the device segment file (for diagnostics and tests). */
    public Path segmentFile()
    {
        return segmentFile;
    }

    int ringCapacity()
    {
        return ringCapacity;
    }

    int eagerLimit()
    {
        return eagerLimit;
    }

    int listenRingCapacity()
    {
        return listenRingCapacity;
    }

    long peerTimeoutNs()
    {
        return peerTimeoutNs;
    }

    long nextFileId()
    {
        return fileIds.incrementAndGet();
    }

    /** {@inheritDoc} */
    public ConnectionManager connectionManager()
    {
        return connectionManager;
    }

    /** {@inheritDoc} */
    protected AbstractProtectionDomain newProtectionDomain()
    {
        return new ShmProtectionDomain(this);
    }

    /** {@inheritDoc} */
    protected Progress progress()
    {
        return progress;
    }

    /**
     * {@inheritDoc}
     * <p>
     * shm does: with no agent, every part of the device runs on the thread that calls it (the peer process shares
     * only the rings, the control blocks and mapped regions, which never take a lock).
     */
    protected boolean supportsSingleThread()
    {
        return true;
    }

    /** {@inheritDoc} */
    protected void onClose()
    {
        stat.close();
        if (null != runner)
        {
            runner.close();
        }
        connectionManager.closeAll();
        segment.putIntVolatile(DeviceSegmentDescriptor.CLOSED_OFFSET, 1);
        synchronized (peers)
        {
            for (final ShmPeer peer : peers.values())
            {
                peer.unmap();
            }
            peers.clear();
            activePeers = new ShmPeer[0];
        }
        deleteQuietly(segmentFile);
        MappedMemory.unmap(segmentMemory);
        files.sweepDead();
    }

    // ---------------------------------------------------------------- region table

    synchronized int reserveSlot()
    {
        if (0 == freeSlotCount)
        {
            throw new VerbsException("the shm region table is full (" + tableCapacity + " regions); deregister " +
                "regions or raise " + ShmConfiguration.REGION_TABLE_CAPACITY_PROP_NAME);
        }
        return freeSlots[--freeSlotCount];
    }

    synchronized void freeSlot(final int slot)
    {
        freeSlots[freeSlotCount++] = slot;
    }

    /**
     * Publishes a region in the shared table: every field first, the control word last with release.
     */
    synchronized void publish(final ShmMemoryRegion region, final long pdId)
    {
        final int offset = DeviceSegmentDescriptor.entryOffset(region.slot());
        segment.putLong(offset + RegionEntryDescriptor.PD_ID_OFFSET, pdId);
        segment.putLong(offset + RegionEntryDescriptor.ADDRESS_OFFSET, region.address());
        segment.putLong(offset + RegionEntryDescriptor.LENGTH_OFFSET, region.length());
        segment.putLong(offset + RegionEntryDescriptor.FILE_ID_OFFSET, region.fileId());
        segment.putInt(offset + RegionEntryDescriptor.ACCESS_OFFSET, region.access());
        final int seq = ++slotSeqs[region.slot()];
        final int state = region.isShared() ? RegionEntryDescriptor.STATE_SHARED : RegionEntryDescriptor.STATE_PRIVATE;
        segment.putLongVolatile(offset + RegionEntryDescriptor.CONTROL_OFFSET,
            RegionEntryDescriptor.control(region.rkey(), seq, state));
    }

    /**
     * Invalidates a region's entry (peers' next check fails) and frees its slot.
     */
    synchronized void unpublish(final ShmMemoryRegion region)
    {
        final int offset = DeviceSegmentDescriptor.entryOffset(region.slot());
        segment.putLongVolatile(offset + RegionEntryDescriptor.CONTROL_OFFSET,
            RegionEntryDescriptor.control(0, ++slotSeqs[region.slot()], RegionEntryDescriptor.STATE_FREE));
        freeSlots[freeSlotCount++] = region.slot();
    }

    // ---------------------------------------------------------------- peers and queue pairs

    ShmPeer acquirePeer(final long peerPid, final long peerDeviceId)
    {
        final String key = peerPid + ":" + peerDeviceId;
        synchronized (peers)
        {
            ShmPeer peer = peers.get(key);
            if (null == peer)
            {
                peer = new ShmPeer(files, peerPid, peerDeviceId);
                peers.put(key, peer);
                activePeers = peers.values().toArray(new ShmPeer[0]);
            }
            peer.retain();
            return peer;
        }
    }

    void releasePeer(final ShmPeer peer)
    {
        synchronized (peers)
        {
            if (peer.release())
            {
                peers.remove(peer.pid() + ":" + peer.deviceId());
                activePeers = peers.values().toArray(new ShmPeer[0]);
                peer.unmap();
            }
        }
    }

    /**
     * Runs {@code task} inside the device's progress, waiting for a round under way to end (setup path; never from
     * the progress's own thread).
     *
     * @param task what to run.
     */
    void progressExclusive(final Runnable task)
    {
        progress.runExclusive(task);
    }

    /** @return whether the calling thread is inside the device's progress; meaningful only in an {@code assert}. */
    boolean holdsProgress()
    {
        return progress.heldByCurrentThread();
    }

    synchronized void addActive(final ShmQueuePair qp)
    {
        final ShmQueuePair[] current = active;
        final ShmQueuePair[] next = Arrays.copyOf(current, current.length + 1);
        next[current.length] = qp;
        active = next;
    }

    synchronized void removeActive(final ShmQueuePair qp)
    {
        final List<ShmQueuePair> next = new ArrayList<>(Arrays.asList(active));
        next.remove(qp);
        active = next.toArray(NO_QPS);
    }

    /**
     * One round of progress; called under the progress try-lock only.
     *
     * @return work done.
     */
    int doProgress()
    {
        int work = 0;
        final ShmQueuePair[] qps = active;
        for (final ShmQueuePair qp : qps)
        {
            work += qp.doWork();
        }
        if (--roundsToClock > 0)
        {
            return work;
        }
        // The housekeeping deadlines are milliseconds apart, and System.nanoTime() costs as much as an idle round
        // of a queue pair (a quarter of a busy-polling CQ's loop was the clock; read every 8th round, still 5%):
        // while rounds are fast the clock is read every MAX_CLOCK_STRIDE rounds (tens of microseconds), once they
        // are slow (an idle strategy parks between them) every round, so a deadline is late by at most one stride
        // of fast rounds, plus, once, the stride in which the rounds turned slow (a backoff strategy's parks grow
        // from a microsecond: a few milliseconds at most, under the 10 ms between exit checks).
        final long nowNs = System.nanoTime();
        clockStride = nowNs - lastClockNs < FAST_STRIDE_NS ? MAX_CLOCK_STRIDE : 1;
        roundsToClock = clockStride;
        lastClockNs = nowNs;
        if (nowNs - nextHousekeepingNs >= 0)
        {
            nextHousekeepingNs = nowNs + Math.max(1_000_000L, peerTimeoutNs / 8);
            nextExitCheckNs = nowNs + EXIT_CHECK_INTERVAL_NS;
            segment.putLongRelease(DeviceSegmentDescriptor.HEARTBEAT_OFFSET, ++heartbeat);
            work += checkPeers(qps, nowNs);
            for (final ShmPeer peer : activePeers)
            {
                work += peer.reclaim();
            }
        }
        else if (nowNs - nextExitCheckNs >= 0)
        {
            // Between the heartbeat checks, only whether a peer closed or its process is gone: both are certain,
            // so they can be looked at often (a few microseconds a peer) without any risk of a false alarm.
            nextExitCheckNs = nowNs + EXIT_CHECK_INTERVAL_NS;
            work += checkPeerExits(qps);
        }
        return work;
    }

    private int checkPeerExits(final ShmQueuePair[] qps)
    {
        int work = 0;
        for (final ShmPeer peer : activePeers)
        {
            if (!peer.isDead() && !peer.checkExited())
            {
                work += onPeerDeath(qps, peer);
            }
        }
        return work;
    }

    private int checkPeers(final ShmQueuePair[] qps, final long nowNs)
    {
        int work = 0;
        for (final ShmPeer peer : activePeers)
        {
            if (!peer.isDead() && !peer.checkAlive(nowNs, peerTimeoutNs))
            {
                work += onPeerDeath(qps, peer);
            }
        }
        return work;
    }

    private int onPeerDeath(final ShmQueuePair[] qps, final ShmPeer peer)
    {
        final boolean orderly = peer.closedOrderly();
        // An orderly close is a disconnect (flush only), as on tcp; a crash or hang is a transport failure. The
        // queue pairs fail before anything is logged: the first record a process logs costs tens of milliseconds
        // (the logging framework starts up), and the completions are what the application is waiting for.
        for (final ShmQueuePair qp : qps)
        {
            if (qp.peer() == peer)
            {
                if (orderly)
                {
                    // The peer published what it received before it closed: take those acknowledgements first, so
                    // that a message it got completes with SUCCESS and only what it never took is flushed.
                    qp.doWork();
                    qp.enterError();
                }
                else
                {
                    qp.fail(WcStatus.RETRY_EXC_ERR);
                }
            }
        }
        LOG.log(orderly ? System.Logger.Level.INFO : System.Logger.Level.WARNING, "verbs4j shm: peer process " +
            peer.pid() + " " + peer.deathReason() + "; its queue pairs went to ERROR (" +
            (orderly ? "WR_FLUSH_ERR" : "RETRY_EXC_ERR") + ")");
        if (peer.exited())
        {
            // Seen exited, perhaps still a zombie that every sweepDead() would take for alive: if the survivors
            // closed before its parent reaped it, nobody would remove its device's files. Its device id makes the
            // names its own even once the PID is reused.
            files.sweepDevice(peer.pid(), peer.deviceId());
        }
        if (!ShmFiles.isAlive(peer.pid(), peer.startTimeMs()))
        {
            // Not sweepPid: the PID may already belong to another verbs4j process with live files.
            files.sweepDead();
        }
        return 1;
    }

    private void onAgentError(final Throwable throwable)
    {
        LOG.log(System.Logger.Level.ERROR, "verbs4j shm: progress agent error (the agent keeps running)", throwable);
    }

    static void deleteQuietly(final Path file)
    {
        try
        {
            Files.deleteIfExists(file);
        }
        catch (final java.io.IOException ignore)
        {
            // Best effort; a later sweep removes it once this process is gone.
        }
    }
}

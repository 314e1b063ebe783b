// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import io.verbs4j.ConnectionException;
import io.verbs4j.RemoteAccessException;
import io.verbs4j.VerbsException;
import io.verbs4j.WcStatus;
import io.verbs4j.shm.protocol.DeviceSegmentDescriptor;
import io.verbs4j.shm.protocol.RegionEntryDescriptor;
import io.verbs4j.shm.protocol.SegmentHeader;
import io.verbs4j.spi.MappedMemory;
import io.verbs4j.spi.RegionMemory;
import io.verbs4j.spi.SilenceDetector;
import org.agrona.UnsafeApi;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A peer device seen from this one: the mapping of its device segment (region table and heartbeat), the cache of
 * its regions this side has mapped, and its liveness. Shared by every local queue pair connected to that device
 * (its <em>users</em>).
 * <p>
 * A region mapping is retired as soon as this side sees that the peer deregistered the region (a lookup finds the
 * cached entry invalid, or the periodic {@link #reclaim()} does), and unmapped once every user has been seen outside
 * its send lock since then, in the device's progress: copies into peer memory only run under that lock or inside
 * the progress, right after the entry's control word was checked, so no copy can be inside a mapping when it goes.
 * The rest go when the last user disconnects.
 */
final class ShmPeer
{
    /**
     * A peer region as validated at lookup: the entry's control word and fields, and this side's mapping.
     * Valid for an operation only while the entry's control word still equals {@link #control}.
     */
    static final class Region
    {
        final int rkey;
        final long controlAddress;
        final long control;
        final long pdId;
        final long address;
        final long length;
        final int access;
        final long fileId;
        final RegionMemory memory;

        Region(
            final int rkey,
            final long controlAddress,
            final long control,
            final long pdId,
            final long address,
            final long length,
            final int access,
            final long fileId,
            final RegionMemory memory)
        {
            this.rkey = rkey;
            this.controlAddress = controlAddress;
            this.control = control;
            this.pdId = pdId;
            this.address = address;
            this.length = length;
            this.access = access;
            this.fileId = fileId;
            this.memory = memory;
        }

        /** @return true while the peer has not deregistered or replaced the region (one volatile load). */
        boolean isValid()
        {
            return UnsafeApi.getLongVolatile(null, controlAddress) == control;
        }

        /** @return true when peers may map it (false: a registered buffer of the peer). */
        boolean isShared()
        {
            return null != memory;
        }
    }

    private static final ShmQueuePair[] NO_USERS = new ShmQueuePair[0];

    /**
     * A mapping the peer deregistered, waiting for every user's send side to leave its lock once. The receive sides
     * need no look: they run only inside the device's progress, as the housekeeping that looks does.
     */
    private static final class Retired
    {
        final RegionMemory memory;
        final ShmQueuePair[] sendSides;

        Retired(final RegionMemory memory, final ShmQueuePair[] users)
        {
            this.memory = memory;
            this.sendSides = users.clone();
        }

        boolean quiescent()
        {
            boolean all = true;
            for (int i = 0; i < sendSides.length; i++)
            {
                if (null != sendSides[i] && !sendSides[i].isSendLocked())
                {
                    sendSides[i] = null;
                }
                all &= null == sendSides[i];
            }
            return all;
        }
    }

    private final ShmFiles files;
    private final long pid;
    private final long deviceId;
    private final RegionMemory segmentMemory;
    private final UnsafeBuffer segment;
    private final int tableCapacity;
    private final boolean heartbeatKept;
    private final long startTimeMs;
    private final ProcessHandle process;
    private final ProcessExitProbe exitProbe;
    private final List<RegionMemory> mappings = new ArrayList<>();
    private final List<Retired> retired = new ArrayList<>();
    private ShmQueuePair[] users = NO_USERS;
    private volatile Int2ObjectHashMap<Region> cache = new Int2ObjectHashMap<>();
    private int refCount;
    private boolean unmapped;
    private long lastHeartbeat = Long.MIN_VALUE;
    private final SilenceDetector silence = new SilenceDetector();
    private volatile boolean dead;
    private String deathReason = "";
    private boolean closedOrderly;
    private boolean exited;

    ShmPeer(final ShmFiles files, final long pid, final long deviceId)
    {
        this.files = files;
        this.pid = pid;
        this.deviceId = deviceId;
        final Path file = files.deviceSegment(pid, deviceId);
        final RegionMemory header;
        try
        {
            header = MappedMemory.open(file, DeviceSegmentDescriptor.TABLE_OFFSET);
        }
        catch (final VerbsException ex)
        {
            throw new ConnectionException("cannot map the peer's device segment " + file + ": " + ex.getMessage(), ex);
        }
        final UnsafeBuffer headerBuffer = new UnsafeBuffer(header.addressOf(0), DeviceSegmentDescriptor.TABLE_OFFSET);
        final String problem = SegmentHeader.check(headerBuffer, SegmentHeader.MAGIC_DEVICE);
        startTimeMs = headerBuffer.getLong(SegmentHeader.START_TIME_OFFSET);
        final int capacity = headerBuffer.getInt(DeviceSegmentDescriptor.TABLE_CAPACITY_OFFSET);
        heartbeatKept = 0 != (headerBuffer.getInt(DeviceSegmentDescriptor.FLAGS_OFFSET) &
            DeviceSegmentDescriptor.FLAG_HEARTBEAT);
        MappedMemory.unmap(header);
        if (null != problem || capacity < 1 || capacity > 1 << 20)
        {
            throw new ConnectionException("peer device segment " + file + " is not usable: " +
                (null != problem ? problem : "bad region table capacity " + capacity));
        }
        tableCapacity = capacity;
        final int length = DeviceSegmentDescriptor.length(capacity);
        segmentMemory = MappedMemory.open(file, length);
        segment = new UnsafeBuffer(segmentMemory.addressOf(0), length);
        process = ProcessHandle.of(pid).orElse(null);
        exitProbe = ProcessExitProbe.of(pid);
        silence.start(System.nanoTime());
    }

    long pid()
    {
        return pid;
    }

    long deviceId()
    {
        return deviceId;
    }

    long startTimeMs()
    {
        return startTimeMs;
    }

    void retain()
    {
        refCount++;
    }

    /**
     * @param qp a queue pair now connected to this peer (it may copy into the peer's mappings).
     */
    synchronized void addUser(final ShmQueuePair qp)
    {
        final ShmQueuePair[] next = java.util.Arrays.copyOf(users, users.length + 1);
        next[users.length] = qp;
        users = next;
    }

    /**
     * @param qp a queue pair that no longer copies into the peer's mappings (its locks are held or retired).
     */
    synchronized void removeUser(final ShmQueuePair qp)
    {
        final List<ShmQueuePair> next = new ArrayList<>(java.util.Arrays.asList(users));
        next.remove(qp);
        users = next.toArray(NO_USERS);
    }

    /** @return region mappings currently held (including retired ones not yet unmapped), for tests. */
    synchronized int mappingCount()
    {
        return mappings.size();
    }

    boolean release()
    {
        return --refCount <= 0;
    }

    boolean isDead()
    {
        return dead;
    }

    String deathReason()
    {
        return deathReason;
    }

    /** @return true when the peer closed its device in order (not a crash or a hang). */
    boolean closedOrderly()
    {
        return closedOrderly;
    }

    /**
     * @return true once the peer's process was seen to have exited (a zombie included: its PID cannot be reused
     *         before its parent reaps it), not merely silent.
     */
    boolean exited()
    {
        return exited;
    }

    /**
     * Finds a peer region by rkey: the cached entry if its control word is unchanged, else a fresh lookup in the
     * peer's table (mapping the file on first use). Allocation-free on a cache hit.
     *
     * @param rkey the rkey.
     * @return the region, or null if the peer has no valid region with that rkey.
     */
    Region region(final int rkey)
    {
        final Region cached = cache.get(rkey);
        if (null != cached && cached.isValid())
        {
            return cached;
        }
        return lookup(rkey);
    }

    private synchronized Region lookup(final int rkey)
    {
        if (unmapped)
        {
            return null;
        }
        final Region cached = cache.get(rkey);
        if (null != cached)
        {
            if (cached.isValid())
            {
                return cached;
            }
            final Int2ObjectHashMap<Region> next = new Int2ObjectHashMap<>(cache);
            next.remove(rkey);
            cache = next;
            retire(cached);
        }
        for (int i = 0; i < tableCapacity; i++)
        {
            final int offset = DeviceSegmentDescriptor.entryOffset(i);
            final long control = segment.getLongVolatile(offset + RegionEntryDescriptor.CONTROL_OFFSET);
            final int state = RegionEntryDescriptor.state(control);
            if (RegionEntryDescriptor.STATE_FREE == state || RegionEntryDescriptor.rkey(control) != rkey)
            {
                continue;
            }
            final long pdId = segment.getLong(offset + RegionEntryDescriptor.PD_ID_OFFSET);
            final long address = segment.getLong(offset + RegionEntryDescriptor.ADDRESS_OFFSET);
            final long length = segment.getLong(offset + RegionEntryDescriptor.LENGTH_OFFSET);
            final long fileId = segment.getLong(offset + RegionEntryDescriptor.FILE_ID_OFFSET);
            final int access = segment.getInt(offset + RegionEntryDescriptor.ACCESS_OFFSET);
            if (segment.getLongVolatile(offset + RegionEntryDescriptor.CONTROL_OFFSET) != control || length <= 0)
            {
                return null;
            }
            RegionMemory memory = null;
            if (RegionEntryDescriptor.STATE_SHARED == state)
            {
                try
                {
                    memory = MappedMemory.open(files.region(pid, deviceId, fileId), length);
                }
                catch (final VerbsException ex)
                {
                    return null;
                }
                mappings.add(memory);
            }
            final Region region = new Region(rkey, segment.addressOffset() + offset, control, pdId, address, length,
                access, fileId, memory);
            final Int2ObjectHashMap<Region> next = new Int2ObjectHashMap<>(cache);
            next.put(rkey, region);
            cache = next;
            return region;
        }
        return null;
    }

    /**
     * Maps a window of a shared peer region for a {@link io.verbs4j.RemoteMemory} view: a mapping of its own, not the
     * cached one, so that its lifetime is the view's (see {@link io.verbs4j.spi.MappedRemoteMemory}).
     *
     * @param region a validated shared region.
     * @param offset window start in the region.
     * @param length window length (at most {@link Integer#MAX_VALUE}).
     * @return the mapping.
     * @throws RemoteAccessException if the file is gone (the peer deregistered it meanwhile) or cannot be mapped.
     */
    MappedByteBuffer mapWindow(final Region region, final long offset, final long length)
    {
        final Path file = files.region(pid, deviceId, region.fileId);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            if (channel.size() < offset + length)
            {
                throw new RemoteAccessException(WcStatus.REM_ACCESS_ERR, "the peer's region file " + file +
                    " holds " + channel.size() + " bytes, fewer than the window needs");
            }
            return channel.map(FileChannel.MapMode.READ_WRITE, offset, length);
        }
        catch (final IOException ex)
        {
            throw new RemoteAccessException(WcStatus.REM_ACCESS_ERR, "cannot map the peer's region (rkey 0x" +
                Integer.toHexString(region.rkey) + ", deregistered meanwhile?): " + ex);
        }
    }

    private void retire(final Region region)
    {
        if (null != region.memory)
        {
            retired.add(new Retired(region.memory, users));
        }
    }

    /**
     * Housekeeping (progress, every few milliseconds): retires the mappings of regions the peer deregistered and
     * unmaps retired mappings no user can be copying into any more.
     *
     * @return mappings unmapped.
     */
    synchronized int reclaim()
    {
        if (unmapped)
        {
            return 0;
        }
        Int2ObjectHashMap<Region> next = null;
        for (final Region region : cache.values())
        {
            if (!region.isValid())
            {
                if (null == next)
                {
                    next = new Int2ObjectHashMap<>(cache);
                }
                next.remove(region.rkey);
            }
        }
        if (null != next)
        {
            for (final Region region : cache.values())
            {
                if (!next.containsKey(region.rkey))
                {
                    retire(region);
                }
            }
            cache = next;
        }
        int work = 0;
        for (int i = retired.size() - 1; i >= 0; i--)
        {
            final Retired r = retired.get(i);
            if (r.quiescent())
            {
                retired.remove(i);
                mappings.remove(r.memory);
                MappedMemory.unmap(r.memory);
                work++;
            }
        }
        return work;
    }

    /**
     * Liveness check, called by progress every few milliseconds.
     *
     * @param nowNs     now.
     * @param timeoutNs the peer timeout.
     * @return false once the peer is found dead, closed or hung.
     */
    boolean checkAlive(final long nowNs, final long timeoutNs)
    {
        if (dead)
        {
            return false;
        }
        if (0 != segment.getIntVolatile(DeviceSegmentDescriptor.CLOSED_OFFSET))
        {
            closedOrderly = true;
            return die("closed its device");
        }
        if (heartbeatKept)
        {
            final long heartbeat = segment.getLongVolatile(DeviceSegmentDescriptor.HEARTBEAT_OFFSET);
            final boolean heard = heartbeat != lastHeartbeat;
            lastHeartbeat = heartbeat;
            // Checks run every timeout/8: one later than timeout/2 means this checker was starved, not the peer.
            if (silence.isSilent(nowNs, heard, timeoutNs / 2, timeoutNs))
            {
                return die(ShmFiles.isAlive(pid, startTimeMs) ? "stopped its heartbeat (hung or stopped)" : "died");
            }
        }
        if (!ShmFiles.isAlive(pid, startTimeMs))
        {
            return die(ShmFiles.isAlive(pid) ? "died (its PID now belongs to another process)" : "died");
        }
        return true;
    }

    /**
     * The quick check progress makes between heartbeat checks: whether the peer closed its device or its process is
     * gone. Both are certain, so a positive answer is never a false alarm (a hang is left to {@link #checkAlive}).
     *
     * @return false once the peer is found closed or dead.
     */
    boolean checkExited()
    {
        if (dead)
        {
            return false;
        }
        if (0 != segment.getIntVolatile(DeviceSegmentDescriptor.CLOSED_OFFSET))
        {
            closedOrderly = true;
            return die("closed its device");
        }
        // The probe sees a zombie (the handle does not) and is bound to this process (a reused PID reads as gone);
        // the handle, which compares the start time, is the fallback where /proc cannot be read. Neither allocates.
        final boolean alive = exitProbe.available() ? !exitProbe.exited() : null != process && process.isAlive();
        exited = !alive;
        return alive || die("died");
    }

    private boolean die(final String reason)
    {
        deathReason = reason;
        dead = true;
        return false;
    }

    synchronized void unmap()
    {
        if (unmapped)
        {
            return;
        }
        unmapped = true;
        cache = new Int2ObjectHashMap<>();
        retired.clear();
        for (final RegionMemory memory : mappings)
        {
            MappedMemory.unmap(memory);
        }
        mappings.clear();
        MappedMemory.unmap(segmentMemory);
        exitProbe.close();
    }
}

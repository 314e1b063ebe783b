// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

import io.verbs4j.ConnectionException;
import io.verbs4j.Listener;
import io.verbs4j.MemoryReservationException;
import io.verbs4j.QueuePair;
import io.verbs4j.VerbsException;
import io.verbs4j.shm.protocol.ConnectRequestDescriptor;
import io.verbs4j.shm.protocol.ConnectionSegmentDescriptor;
import io.verbs4j.shm.protocol.ListenerSegmentDescriptor;
import io.verbs4j.shm.protocol.SegmentHeader;
import io.verbs4j.spi.MappedMemory;
import io.verbs4j.spi.RegionMemory;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;

/**
 * Connection manager on {@code shm://name}. The listener owns a well-known file with a request ring; the connector
 * creates the connection segment (both data rings), writes a request naming it, and waits for the handshake state
 * in that segment to leave PENDING. Accept and abandon race by CAS on that word, so a connector that timed out can
 * never end up half-connected.
 */
final class ShmConnectionManager implements io.verbs4j.ConnectionManager
{
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,200}");
    private static final String SCHEME = "shm://";

    private final ShmDevice device;
    private final Set<ShmListener> listeners = ConcurrentHashMap.newKeySet();

    ShmConnectionManager(final ShmDevice device)
    {
        this.device = device;
    }

    static String parse(final String endpoint)
    {
        if (null == endpoint || !endpoint.startsWith(SCHEME) ||
            !NAME.matcher(endpoint.substring(SCHEME.length())).matches())
        {
            throw new ConnectionException("malformed shm endpoint '" + endpoint +
                "'; expected shm://name with a name " +
                "of letters, digits, '.', '_' or '-'");
        }
        return endpoint.substring(SCHEME.length());
    }

    /** {@inheritDoc} */
    public Listener listen(final String endpoint)
    {
        Objects.requireNonNull(endpoint, "endpoint");
        checkOpen();
        final String name = parse(endpoint);
        final ShmListener listener = new ShmListener(device, this, name, device.files().listener(name));
        listeners.add(listener);
        return listener;
    }

    void removeListener(final ShmListener listener)
    {
        listeners.remove(listener);
    }

    void closeAll()
    {
        for (final ShmListener listener : listeners)
        {
            listener.close();
        }
    }

    /** {@inheritDoc} */
    public byte[] connect(final QueuePair queuePair, final String endpoint, final byte[] privateData,
        final Duration timeout)
    {
        Objects.requireNonNull(queuePair, "qp");
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(timeout, "timeout");
        checkOpen();
        final String name = parse(endpoint);
        final ShmQueuePair qp = own(queuePair);
        if (qp.shmDevice() != device)
        {
            throw new IllegalArgumentException("the queue pair belongs to another device; connect it through its own " +
                "device's connection manager");
        }
        final byte[] data = null == privateData ? new byte[0] : privateData;
        checkPrivateData(data);
        qp.checkConnectableForCm();
        final long deadlineNs = System.nanoTime() + timeout.toNanos();
        final Path listenerFile = device.files().listener(name);
        if (!Files.exists(listenerFile))
        {
            throw new ConnectionException("nothing listens on " + endpoint + " (no " + listenerFile + ")");
        }
        checkOwnListener(listenerFile, endpoint);
        final RegionMemory listenerMemory;
        try
        {
            listenerMemory = MappedMemory.open(listenerFile, ListenerSegmentDescriptor.RING_OFFSET);
        }
        catch (final VerbsException ex)
        {
            throw new ConnectionException("cannot open the listener of " + endpoint + ": " + ex.getMessage(), ex);
        }
        final UnsafeBuffer header = new UnsafeBuffer(listenerMemory.addressOf(0),
            ListenerSegmentDescriptor.RING_OFFSET);
        final String problem = SegmentHeader.check(header, SegmentHeader.MAGIC_LISTENER);
        final int listenCapacity = header.getInt(ListenerSegmentDescriptor.RING_CAPACITY_OFFSET);
        final long listenerPid = header.getLong(SegmentHeader.PID_OFFSET);
        final long listenerStartTimeMs = header.getLong(SegmentHeader.START_TIME_OFFSET);
        MappedMemory.unmap(listenerMemory);
        if (null != problem)
        {
            throw new ConnectionException("listener of " + endpoint + " is not usable: " + problem);
        }
        if (!ShmFiles.isAlive(listenerPid, listenerStartTimeMs))
        {
            throw new ConnectionException("the process listening on " + endpoint + " (pid " + listenerPid +
                ") is dead");
        }
        final RegionMemory listenMapping = MappedMemory.open(listenerFile,
            ListenerSegmentDescriptor.length(listenCapacity));
        final long connectionId = ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE;
        final Path connectionFile = device.files().connection(device.pid(), device.deviceId(), connectionId);
        final int ringCapacity = device.ringCapacity();
        RegionMemory connectionMemory = null;
        boolean connected = false;
        try
        {
            connectionMemory = createConnectionSegment(connectionFile, ringCapacity);
            final UnsafeBuffer segment = new UnsafeBuffer(connectionMemory.addressOf(0),
                ConnectionSegmentDescriptor.length(ringCapacity));
            segment.putInt(ConnectionSegmentDescriptor.RING_CAPACITY_OFFSET, ringCapacity);
            segment.putInt(ConnectionSegmentDescriptor.CONNECTOR_QPN_OFFSET, qp.qpNumber());
            segment.putLong(ConnectionSegmentDescriptor.CONNECTOR_PD_ID_OFFSET, qp.pdId());
            segment.putIntVolatile(ConnectionSegmentDescriptor.STATE_OFFSET, ConnectionSegmentDescriptor.PENDING);
            SegmentHeader.write(segment, SegmentHeader.MAGIC_CONNECTION, device.pid(), device.deviceId(),
                ShmFiles.currentStartTimeMs());

            final UnsafeBuffer listenBuffer = new UnsafeBuffer(listenMapping.addressOf(0),
                ListenerSegmentDescriptor.length(listenCapacity));
            final ManyToOneRingBuffer requests = new ManyToOneRingBuffer(new UnsafeBuffer(
                listenMapping.addressOf(ListenerSegmentDescriptor.RING_OFFSET),
                listenCapacity + org.agrona.concurrent.ringbuffer.RingBufferDescriptor.TRAILER_LENGTH));
            final UnsafeBuffer request = new UnsafeBuffer(new byte[ConnectRequestDescriptor.PRIVATE_DATA_OFFSET +
                data.length]);
            request.putInt(ConnectRequestDescriptor.VERSION_OFFSET, SegmentHeader.VERSION);
            request.putInt(ConnectRequestDescriptor.QPN_OFFSET, qp.qpNumber());
            request.putLong(ConnectRequestDescriptor.PID_OFFSET, device.pid());
            request.putLong(ConnectRequestDescriptor.DEVICE_ID_OFFSET, device.deviceId());
            request.putLong(ConnectRequestDescriptor.CONNECTION_ID_OFFSET, connectionId);
            request.putInt(ConnectRequestDescriptor.PRIVATE_DATA_LENGTH_OFFSET, data.length);
            request.putBytes(ConnectRequestDescriptor.PRIVATE_DATA_OFFSET, data);

            final IdleStrategy idle = device.context().newIdleStrategy();
            while (!requests.write(ConnectRequestDescriptor.TYPE_CONNECT, request, 0, request.capacity()))
            {
                checkListener(listenBuffer, endpoint, listenerPid, deadlineNs);
                idle.idle();
            }
            idle.reset();
            int state;
            while (ConnectionSegmentDescriptor.PENDING ==
                (state = segment.getIntVolatile(ConnectionSegmentDescriptor.STATE_OFFSET)))
            {
                try
                {
                    checkListener(listenBuffer, endpoint, listenerPid, deadlineNs);
                }
                catch (final ConnectionException ex)
                {
                    if (segment.compareAndSetInt(ConnectionSegmentDescriptor.STATE_OFFSET,
                        ConnectionSegmentDescriptor.PENDING, ConnectionSegmentDescriptor.ABANDONED))
                    {
                        throw ex;
                    }
                    continue;
                }
                idle.idle();
            }
            final int responseLength = segment.getInt(ConnectionSegmentDescriptor.RESPONSE_LENGTH_OFFSET);
            if (responseLength < 0 || responseLength > ShmConfiguration.MAX_PRIVATE_DATA_LENGTH)
            {
                throw new ConnectionException("malformed answer from " + endpoint + " (length " + responseLength + ")");
            }
            final byte[] response = new byte[responseLength];
            segment.getBytes(ConnectionSegmentDescriptor.RESPONSE_OFFSET, response);
            if (ConnectionSegmentDescriptor.REJECTED == state)
            {
                throw new ConnectionException("connection to " + endpoint + " rejected: " +
                    new String(response, java.nio.charset.StandardCharsets.UTF_8));
            }
            if (ConnectionSegmentDescriptor.ACCEPTED != state)
            {
                throw new ConnectionException("unexpected handshake state " + state + " from " + endpoint);
            }
            final long acceptorPid = segment.getLong(ConnectionSegmentDescriptor.ACCEPTOR_PID_OFFSET);
            final long acceptorDeviceId = segment.getLong(ConnectionSegmentDescriptor.ACCEPTOR_DEVICE_ID_OFFSET);
            final ShmPeer peer = device.acquirePeer(acceptorPid, acceptorDeviceId);
            try
            {
                qp.connectTo(new ShmConnection(connectionMemory, 0, ringCapacity, peer,
                    segment.getLong(ConnectionSegmentDescriptor.ACCEPTOR_PD_ID_OFFSET),
                    segment.getInt(ConnectionSegmentDescriptor.ACCEPTOR_QPN_OFFSET)));
            }
            catch (final RuntimeException ex)
            {
                device.releasePeer(peer);
                segment.putIntVolatile(ConnectionSegmentDescriptor.CONTROL_0_OFFSET +
                    ConnectionSegmentDescriptor.CLOSED_OFFSET, 1);
                throw ex;
            }
            connected = true;
            return response;
        }
        finally
        {
            MappedMemory.unmap(listenMapping);
            ShmDevice.deleteQuietly(connectionFile);
            if (!connected && null != connectionMemory)
            {
                MappedMemory.unmap(connectionMemory);
            }
        }
    }

    private static void checkListener(
        final UnsafeBuffer listener, final String endpoint, final long listenerPid, final long deadlineNs)
    {
        if (0 != listener.getIntVolatile(ListenerSegmentDescriptor.CLOSED_OFFSET))
        {
            throw new ConnectionException("the listener on " + endpoint + " was closed");
        }
        if (System.nanoTime() - deadlineNs >= 0)
        {
            throw new ConnectionException("timed out connecting to " + endpoint + " (no answer from pid " +
                listenerPid + ")");
        }
    }

    static void checkPrivateData(final byte[] data)
    {
        if (data.length > ShmConfiguration.MAX_PRIVATE_DATA_LENGTH)
        {
            throw new IllegalArgumentException("private data of " + data.length + " bytes exceeds the maximum of " +
                ShmConfiguration.MAX_PRIVATE_DATA_LENGTH);
        }
    }

    /**
     * The shm directory is shared by every user (/dev/shm is world-writable): another user can plant a file under
     * this user's listener name, and a connector that mapped it would write the handshake's private data (rkeys,
     * addresses) where that user reads it. Only a listener file owned by this user and closed to others is used.
     */
    private static void checkOwnListener(final Path file, final String endpoint)
    {
        final long uid;
        final int mode;
        try
        {
            final java.util.Map<String, Object> attributes = Files.readAttributes(file, "unix:uid,mode",
                java.nio.file.LinkOption.NOFOLLOW_LINKS);
            uid = ((Number)attributes.get("uid")).longValue();
            mode = ((Number)attributes.get("mode")).intValue();
        }
        catch (final java.io.IOException | RuntimeException ex)
        {
            throw new ConnectionException("cannot check the listener file of " + endpoint + ": " + ex, ex);
        }
        if (ShmFiles.currentUid() != uid || 0 != (mode & 0077) || 0100000 != (mode & 0170000))
        {
            throw new ConnectionException("refusing the listener file " + file + " of " + endpoint + ": owned by uid " +
                uid + " with mode " + Integer.toOctalString(mode) +
                    "; an shm listener must be a regular file of this " +
                "user (uid " + ShmFiles.currentUid() + ") with mode 0600, else the private data could reach another " +
                "user");
        }
    }

    private void checkOpen()
    {
        if (device.isClosed())
        {
            throw new IllegalStateException("device 'shm' is closed");
        }
    }

    static ShmQueuePair own(final QueuePair qp)
    {
        if (!(qp instanceof ShmQueuePair))
        {
            throw new IllegalArgumentException("not an shm queue pair: " + qp);
        }
        return (ShmQueuePair)qp;
    }

    private RegionMemory createConnectionSegment(final Path connectionFile, final int ringCapacity)
    {
        try
        {
            return MappedMemory.create(connectionFile, ConnectionSegmentDescriptor.length(ringCapacity),
                ShmConfiguration.DIR_PROP_NAME);
        }
        catch (final MemoryReservationException ex)
        {
            device.counters().increment(ShmCounter.SEGMENTS_REFUSED);
            throw ex;
        }
    }
}

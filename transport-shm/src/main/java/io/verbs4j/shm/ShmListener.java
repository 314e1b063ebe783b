// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

import io.verbs4j.ConnectionException;
import io.verbs4j.ConnectionRequest;
import io.verbs4j.Listener;
import io.verbs4j.VerbsException;
import io.verbs4j.shm.protocol.ConnectRequestDescriptor;
import io.verbs4j.shm.protocol.ListenerSegmentDescriptor;
import io.verbs4j.shm.protocol.SegmentHeader;
import io.verbs4j.spi.MappedMemory;
import io.verbs4j.spi.RegionMemory;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/**
 * A listener on {@code shm://name}: owns {@code <prefix><name>.listen}, whose ring connectors write requests into.
 * {@link #accept(Duration)} reads them on the caller's thread.
 */
final class ShmListener implements Listener, MessageHandler
{
    private static final System.Logger LOG = System.getLogger("io.verbs4j.shm");

    private final ShmDevice device;
    private final ShmConnectionManager manager;
    private final String name;
    private final Path file;
    private final RegionMemory memory;
    private final UnsafeBuffer segment;
    private final ManyToOneRingBuffer requests;
    private ShmConnectionRequest received;
    private volatile boolean closed;

    ShmListener(final ShmDevice device, final ShmConnectionManager manager, final String name, final Path file)
    {
        this.device = device;
        this.manager = manager;
        this.name = name;
        this.file = file;
        if (Files.exists(file))
        {
            final long owner = device.files().ownerPid(file);
            if (owner > 0 && ShmFiles.isAlive(owner, ShmFiles.headerStartTimeMs(file)))
            {
                throw new ConnectionException("shm://" + name + " is already taken by pid " + owner);
            }
            ShmDevice.deleteQuietly(file);
        }
        final int capacity = device.listenRingCapacity();
        final int length = ListenerSegmentDescriptor.length(capacity);
        try
        {
            memory = MappedMemory.create(file, length, ShmConfiguration.DIR_PROP_NAME);
        }
        catch (final VerbsException ex)
        {
            throw new ConnectionException("cannot listen on shm://" + name + ": " + ex.getMessage(), ex);
        }
        segment = new UnsafeBuffer(memory.addressOf(0), length);
        segment.putInt(ListenerSegmentDescriptor.RING_CAPACITY_OFFSET, capacity);
        requests = new ManyToOneRingBuffer(new UnsafeBuffer(memory.addressOf(ListenerSegmentDescriptor.RING_OFFSET),
            capacity + RingBufferDescriptor.TRAILER_LENGTH));
        SegmentHeader.write(segment, SegmentHeader.MAGIC_LISTENER, device.pid(), device.deviceId(),
            ShmFiles.currentStartTimeMs());
    }

    /** {@inheritDoc} */
    public String endpoint()
    {
        return "shm://" + name;
    }

    /** {@inheritDoc} */
    public synchronized ConnectionRequest accept(final Duration timeout)
    {
        Objects.requireNonNull(timeout, "timeout");
        final long deadlineNs = System.nanoTime() + timeout.toNanos();
        final IdleStrategy idle = device.context().newIdleStrategy();
        while (true)
        {
            if (closed)
            {
                throw new ConnectionException("listener on shm://" + name + " is closed");
            }
            received = null;
            requests.read(this, 1);
            if (null != received)
            {
                return received;
            }
            if (System.nanoTime() - deadlineNs >= 0)
            {
                return null;
            }
            idle.idle();
        }
    }

    /** {@inheritDoc} */
    public void onMessage(final int type, final MutableDirectBuffer buffer, final int index, final int length)
    {
        if (ConnectRequestDescriptor.TYPE_CONNECT != type || length < ConnectRequestDescriptor.PRIVATE_DATA_OFFSET ||
            SegmentHeader.VERSION != buffer.getInt(index + ConnectRequestDescriptor.VERSION_OFFSET))
        {
            LOG.log(System.Logger.Level.WARNING, "verbs4j shm: listener " + name + " dropped a malformed request " +
                "(type " + type + ", length " + length + ")");
            return;
        }
        final int dataLength = buffer.getInt(index + ConnectRequestDescriptor.PRIVATE_DATA_LENGTH_OFFSET);
        if (dataLength < 0 || dataLength > ShmConfiguration.MAX_PRIVATE_DATA_LENGTH ||
            ConnectRequestDescriptor.PRIVATE_DATA_OFFSET + dataLength != length)
        {
            LOG.log(System.Logger.Level.WARNING, "verbs4j shm: listener " + name + " dropped a request with a bad " +
                "private data length " + dataLength);
            return;
        }
        final byte[] data = new byte[dataLength];
        buffer.getBytes(index + ConnectRequestDescriptor.PRIVATE_DATA_OFFSET, data);
        received = new ShmConnectionRequest(device,
            buffer.getLong(index + ConnectRequestDescriptor.PID_OFFSET),
            buffer.getLong(index + ConnectRequestDescriptor.DEVICE_ID_OFFSET),
            buffer.getInt(index + ConnectRequestDescriptor.QPN_OFFSET),
            buffer.getLong(index + ConnectRequestDescriptor.CONNECTION_ID_OFFSET),
            data);
    }

    /** {@inheritDoc} */
    public void close()
    {
        synchronized (this)
        {
            if (closed)
            {
                return;
            }
            closed = true;
            segment.putIntVolatile(ListenerSegmentDescriptor.CLOSED_OFFSET, 1);
            ShmDevice.deleteQuietly(file);
            MappedMemory.unmap(memory);
        }
        manager.removeListener(this);
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

import io.verbs4j.ConnectionException;
import io.verbs4j.ConnectionRequest;
import io.verbs4j.QueuePair;
import io.verbs4j.VerbsException;
import io.verbs4j.shm.protocol.ConnectionSegmentDescriptor;
import io.verbs4j.shm.protocol.SegmentHeader;
import io.verbs4j.spi.MappedMemory;
import io.verbs4j.spi.RegionMemory;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A connection request read from a listener's ring; answering it maps the connector's connection segment and
 * writes the answer there.
 */
final class ShmConnectionRequest implements ConnectionRequest
{
    private final ShmDevice device;
    private final long peerPid;
    private final long peerDeviceId;
    private final int peerQpn;
    private final long connectionId;
    private final byte[] privateData;
    private final AtomicBoolean answered = new AtomicBoolean();

    ShmConnectionRequest(
        final ShmDevice device,
        final long peerPid,
        final long peerDeviceId,
        final int peerQpn,
        final long connectionId,
        final byte[] privateData)
    {
        this.device = device;
        this.peerPid = peerPid;
        this.peerDeviceId = peerDeviceId;
        this.peerQpn = peerQpn;
        this.connectionId = connectionId;
        this.privateData = privateData;
    }

    /** {@inheritDoc} */
    public byte[] privateData()
    {
        return privateData.clone();
    }

    /** {@inheritDoc} */
    public String peer()
    {
        return "pid " + peerPid + " device " + Long.toHexString(peerDeviceId) + " qp " + peerQpn;
    }

    /** {@inheritDoc} */
    public void accept(final QueuePair queuePair, final byte[] data)
    {
        Objects.requireNonNull(queuePair, "qp");
        final ShmQueuePair qp = ShmConnectionManager.own(queuePair);
        final byte[] response = null == data ? new byte[0] : data;
        ShmConnectionManager.checkPrivateData(response);
        qp.checkConnectableForCm();
        answer();
        final ShmDevice qpDevice = qp.shmDevice();
        final RegionMemory memory = mapSegment(qpDevice);
        final UnsafeBuffer segment = new UnsafeBuffer(memory.addressOf(0), (int)memory.length());
        final int ringCapacity = segment.getInt(ConnectionSegmentDescriptor.RING_CAPACITY_OFFSET);
        // The connector wrote this word before mapSegment validated it; it may have changed since. Only the value
        // the mapping was sized for is safe to build rings on.
        if (ringCapacity < 4096 || ringCapacity > 1 << 27 ||
            ConnectionSegmentDescriptor.length(ringCapacity) != memory.length())
        {
            MappedMemory.unmap(memory);
            throw new ConnectionException("connection segment from " + peer() + " changed its ring capacity to " +
                ringCapacity + " during the accept");
        }
        ShmPeer peer = null;
        boolean done = false;
        try
        {
            peer = qpDevice.acquirePeer(peerPid, peerDeviceId);
            segment.putLong(ConnectionSegmentDescriptor.ACCEPTOR_PID_OFFSET, qpDevice.pid());
            segment.putLong(ConnectionSegmentDescriptor.ACCEPTOR_DEVICE_ID_OFFSET, qpDevice.deviceId());
            segment.putLong(ConnectionSegmentDescriptor.ACCEPTOR_PD_ID_OFFSET, qp.pdId());
            segment.putInt(ConnectionSegmentDescriptor.ACCEPTOR_QPN_OFFSET, qp.qpNumber());
            segment.putInt(ConnectionSegmentDescriptor.RESPONSE_LENGTH_OFFSET, response.length);
            segment.putBytes(ConnectionSegmentDescriptor.RESPONSE_OFFSET, response);
            final ShmConnection connection = new ShmConnection(memory, 1, ringCapacity, peer,
                segment.getLong(ConnectionSegmentDescriptor.CONNECTOR_PD_ID_OFFSET), peerQpn);
            if (!segment.compareAndSetInt(ConnectionSegmentDescriptor.STATE_OFFSET,
                ConnectionSegmentDescriptor.PENDING, ConnectionSegmentDescriptor.ACCEPTED))
            {
                throw new ConnectionException("the connector (" + peer() + ") gave up before the accept");
            }
            qp.connectTo(connection);
            done = true;
        }
        finally
        {
            if (!done)
            {
                segment.putIntVolatile(ConnectionSegmentDescriptor.CONTROL_1_OFFSET +
                    ConnectionSegmentDescriptor.CLOSED_OFFSET, 1);
                if (null != peer)
                {
                    qpDevice.releasePeer(peer);
                }
                MappedMemory.unmap(memory);
            }
        }
    }

    /** {@inheritDoc} */
    public void reject(final String reason)
    {
        answer();
        final RegionMemory memory = mapSegment(device);
        try
        {
            final UnsafeBuffer segment = new UnsafeBuffer(memory.addressOf(0), (int)memory.length());
            final byte[] text = (null == reason ? "" : reason).getBytes(StandardCharsets.UTF_8);
            final int length = Math.min(text.length, ShmConfiguration.MAX_PRIVATE_DATA_LENGTH);
            segment.putInt(ConnectionSegmentDescriptor.RESPONSE_LENGTH_OFFSET, length);
            segment.putBytes(ConnectionSegmentDescriptor.RESPONSE_OFFSET, text, 0, length);
            segment.compareAndSetInt(ConnectionSegmentDescriptor.STATE_OFFSET,
                ConnectionSegmentDescriptor.PENDING, ConnectionSegmentDescriptor.REJECTED);
        }
        finally
        {
            MappedMemory.unmap(memory);
        }
    }

    private void answer()
    {
        if (!answered.compareAndSet(false, true))
        {
            throw new IllegalStateException("this connection request was already answered");
        }
    }

    private RegionMemory mapSegment(final ShmDevice owner)
    {
        final Path file = owner.files().connection(peerPid, peerDeviceId, connectionId);
        final RegionMemory header;
        try
        {
            header = MappedMemory.open(file, ConnectionSegmentDescriptor.RINGS_OFFSET);
        }
        catch (final VerbsException ex)
        {
            throw new ConnectionException("the connector (" + peer() + ") has gone: " + ex.getMessage(), ex);
        }
        final UnsafeBuffer buffer = new UnsafeBuffer(header.addressOf(0), ConnectionSegmentDescriptor.RINGS_OFFSET);
        final String problem = SegmentHeader.check(buffer, SegmentHeader.MAGIC_CONNECTION);
        final int ringCapacity = buffer.getInt(ConnectionSegmentDescriptor.RING_CAPACITY_OFFSET);
        MappedMemory.unmap(header);
        if (null != problem || ringCapacity < 4096 || ringCapacity > 1 << 27 || Integer.bitCount(ringCapacity) != 1)
        {
            throw new ConnectionException("bad connection segment from " + peer() + ": " +
                (null != problem ? problem : "ring capacity " + ringCapacity));
        }
        try
        {
            return MappedMemory.open(file, ConnectionSegmentDescriptor.length(ringCapacity));
        }
        catch (final VerbsException ex)
        {
            throw new ConnectionException("the connector (" + peer() + ") has gone: " + ex.getMessage(), ex);
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import io.verbs4j.QpState;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.RemoteMemory;
import io.verbs4j.spi.AbstractQueuePair;
import io.verbs4j.stat.SingleWriterCounters;

/**
 * An RC queue pair over shared memory: the binding of the SPI's queue pair to a connection, and the glue between
 * the parts that carry its protocols, cut as libfabric's shm provider is ({@code smr_*} files, a {@code send_ops}
 * table):
 * <ul>
 *   <li>{@link ShmSender}: the send side. Work requests are carried out strictly in posting order by its pump
 *   (under a try-lock taken by the posting thread or by progress); SEND, SEND_WITH_IMM and the notification of
 *   WRITE_WITH_IMM become ring records numbered by a message sequence number (MSN), completed when the peer
 *   acknowledges the MSN through its control block; an RNR NAK rewinds the pump (go-back-N, as RC does). A full
 *   ring stops the pump; progress resumes it (back-pressure never surfaces as an exception).</li>
 *   <li>{@link ShmDirectRma}: WRITE, READ and atomics on a mapped peer region, carried out by the posting thread
 *   inside {@code postSend} while the send queue is idle (and by the pump otherwise, with the same checks of the
 *   peer's published region table entry: rkey, protection domain, access bits, bounds): one copy or one CPU atomic,
 *   nothing for the peer's threads to do.</li>
 *   <li>{@link ShmEagerMessages}: SENDs copied into the ring (one inline record, or fragments from memory the peer
 *   cannot map), and the WRITE_WITH_IMM notification.</li>
 *   <li>{@link ShmRendezvousPull}: large SENDs from shared regions, which the receiver copies once from the
 *   sender's mapped memory.</li>
 *   <li>{@link ShmServedRequests}: WRITE, READ and atomics on a peer's registered (unshareable) buffer, as request
 *   records the peer's receive side checks against its key table and carries out; the pump waits for the last
 *   record's acknowledgement before the next request (an implicit fence, as for direct one-sided work).</li>
 *   <li>{@link ShmReceiver}: the receive side and the queue pair's progress round (records in order; a record that
 *   finds no posted receive is refused with an RNR NAK and every later one dropped until the sender retransmits),
 *   run by the device's one driver, {@link ShmProgress}.</li>
 * </ul>
 * <p>
 * Threading: the life cycle (connect, reset, close) runs on the application's setup path; it unbinds inside the
 * device's progress with the send side's lock taken (waiting for its holder).
 */
public final class ShmQueuePair extends AbstractQueuePair
{
    private final ShmDevice device;
    private final ShmProtectionDomain shmPd;
    /** Data-path counters: the send-side ones written under the send lock, the receive-side ones inside the device's
     *  progress. */
    private final SingleWriterCounters counters;
    private final ShmSender sender;
    private final ShmReceiver receiver;

    private volatile ShmConnection connection;

    ShmQueuePair(final ShmProtectionDomain pd, final QueuePairConfig config, final int qpNumber)
    {
        super(pd, config, qpNumber);
        this.shmPd = pd;
        this.device = (ShmDevice)pd.device();
        this.counters = device.counters().attach();
        this.sender = new ShmSender(this, device.counters(), counters, device.eagerLimit(), config);
        this.receiver = new ShmReceiver(this, sender, device.counters(), counters);
        installDirectExecutor(new ShmDirectRma(sender));
    }

    /** @return the send side (for the direct path and tests). */
    ShmSender sender()
    {
        return sender;
    }

    /** @return the protection-domain id published with this QP's regions. */
    long pdId()
    {
        return shmPd.pdId();
    }

    void checkConnectableForCm()
    {
        checkConnectable();
    }

    ShmDevice shmDevice()
    {
        return device;
    }

    ShmConnection connection()
    {
        return connection;
    }

    ShmPeer peer()
    {
        final ShmConnection c = connection;
        return null == c ? null : c.peer;
    }

    /** {@inheritDoc} */
    protected RemoteMemory mapPeerRegion(final long remoteAddress, final int rkey, final long length,
        final int access)
    {
        final ShmConnection c = connection;
        if (null == c)
        {
            throw new IllegalStateException("queue pair " + qpNumber() + " is not connected");
        }
        return ShmPeerMemory.map(this, c, remoteAddress, rkey, length, access);
    }

    /**
     * For the connection manager: binds the queue pair to a connection and moves it to RTS.
     *
     * @param c the connection.
     */
    void connectTo(final ShmConnection c)
    {
        checkConnectable();
        sender.reset();
        receiver.reset();
        connection = c;
        c.peer.addUser(this);
        try
        {
            moveToRts();
        }
        catch (final RuntimeException ex)
        {
            connection = null;
            c.peer.removeUser(this);
            throw ex;
        }
        device.addActive(this);
        device.counters().increment(ShmCounter.CONNECTIONS_ESTABLISHED);
    }

    /** {@inheritDoc} */
    protected void transmit(final long pos)
    {
        sender.pump();
    }

    /**
     * {@inheritDoc}
     * <p>
     * The sender's pump transmits everything published, so a batch needs one pump, not one per request.
     */
    protected void transmitBatch(final long firstPos, final long lastPos)
    {
        sender.pump();
    }

    /** {@inheritDoc} */
    protected void onEnterError(final QpState previous)
    {
        final ShmConnection c = connection;
        if (null != c)
        {
            device.counters().increment(ShmCounter.CONNECTIONS_FAILED);
            c.putClosed();
        }
    }

    /** {@inheritDoc} */
    protected void onReset()
    {
        unbind(false);
    }

    /** {@inheritDoc} */
    protected void onClose()
    {
        unbind(true);
        // Both sides' locks are retired now: nothing writes the counters any more.
        device.counters().detach(counters);
    }

    private void unbind(final boolean retire)
    {
        device.removeActive(this);
        // Inside the progress, the receive side is not running (it has no lock of its own); the send side's lock is
        // retired for posting threads.
        device.progressExclusive(() ->
        {
            sender.retire();
            final ShmConnection c = connection;
            connection = null;
            receiver.forgetPeer();
            sender.forgetPeer();
            if (null != c)
            {
                c.putClosed();
                c.unmap();
                c.peer.removeUser(this);
                device.releasePeer(c.peer);
            }
            if (!retire)
            {
                sender.unlock();
            }
        });
    }

    /**
     * Waits until the send side of this queue pair is not running (observed free or retired once). Setup path only;
     * the receive side runs inside the device's progress, which {@link ShmDevice#progressExclusive} waits for.
     */
    void awaitSendUnlocked()
    {
        sender.awaitUnlocked();
    }

    boolean isSendLocked()
    {
        return sender.isLocked();
    }

    /**
     * One round of this queue pair's progress (see {@link ShmReceiver#doWork()}). Called inside the device's progress
     * only.
     *
     * @return work done.
     */
    int doWork()
    {
        return receiver.doWork();
    }
}

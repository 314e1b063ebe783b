// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import io.verbs4j.Opcode;
import io.verbs4j.QpState;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.spi.AbstractProtectionDomain;
import io.verbs4j.spi.AbstractQueuePair;

/**
 * An RC queue pair of the tcp provider. The verbs semantics live in {@link AbstractQueuePair}; this class binds the
 * queue pair to its {@link TcpConnection} and forwards posts to the connection's I/O thread.
 */
final class TcpQueuePair extends AbstractQueuePair
{
    private volatile TcpConnection connection;

    TcpQueuePair(final AbstractProtectionDomain pd, final QueuePairConfig config, final int qpNumber)
    {
        super(pd, config, qpNumber);
    }

    /** @return the connection, or null before connecting / after reset. */
    TcpConnection connection()
    {
        return connection;
    }

    /** For the connection manager: throws unless RESET or INIT. */
    void ensureConnectable()
    {
        checkConnectable();
    }

    /**
     * For the connection manager: bind to a connection and move to RTS.
     *
     * @param connection the connection.
     */
    void connect(final TcpConnection connection)
    {
        this.connection = connection;
        try
        {
            moveToRts();
        }
        catch (final RuntimeException ex)
        {
            this.connection = null;
            throw ex;
        }
    }

    /** {@inheritDoc} */
    protected void transmit(final long pos)
    {
        final TcpConnection c = connection;
        if (null != c)
        {
            final int opcode = sendQueue().opcode(pos);
            c.posted(Opcode.RDMA_READ != opcode && !Opcode.isAtomic(opcode) &&
                sendQueue().totalLength(pos) >= TcpReadSpin.BULK_BATCH_BYTES);
            c.requester().requestPump();
        }
    }

    /**
     * {@inheritDoc}
     * <p>
     * The requester's pump sends everything published, so a batch needs one wake-up, not one per request.
     */
    protected void transmitBatch(final long firstPos, final long lastPos)
    {
        transmit(lastPos);
    }

    /** {@inheritDoc} */
    protected void onEnterError(final QpState previous)
    {
        final TcpConnection c = connection;
        if (null != c)
        {
            c.localError();
        }
    }

    /** {@inheritDoc} */
    protected void onReset()
    {
        connection = null;
    }

    /** {@inheritDoc} */
    protected void onClose()
    {
        final TcpConnection c = connection;
        if (null != c)
        {
            c.localError();
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

import io.verbs4j.ConnectionRequest;
import io.verbs4j.QueuePair;

/**
 * A connector's request waiting in a {@link TcpListener}; answer it once.
 */
final class TcpConnectionRequest implements ConnectionRequest
{
    private final TcpHandshake connection;
    private final byte[] privateData;
    private final String peer;
    private final AtomicBoolean answered = new AtomicBoolean();

    TcpConnectionRequest(final TcpHandshake connection, final byte[] privateData, final String peer)
    {
        this.connection = connection;
        this.privateData = privateData;
        this.peer = peer;
    }

    /** {@inheritDoc} */
    public byte[] privateData()
    {
        return privateData.clone();
    }

    /** {@inheritDoc} */
    public String peer()
    {
        return peer;
    }

    /** {@inheritDoc} */
    public void accept(final QueuePair qp, final byte[] privateData)
    {
        Objects.requireNonNull(qp, "qp");
        final TcpQueuePair queuePair = TcpConnectionManager.own(qp, connection.device());
        queuePair.ensureConnectable();
        TcpConnectionManager.checkPrivateData(privateData);
        answer();
        connection.accept(queuePair, null == privateData ? new byte[0] : privateData.clone());
    }

    /** {@inheritDoc} */
    public void reject(final String reason)
    {
        answer();
        connection.reject(null == reason ? "" : reason);
    }

    private void answer()
    {
        if (!answered.compareAndSet(false, true))
        {
            throw new IllegalStateException("connection request from " + peer + " was already answered");
        }
    }
}

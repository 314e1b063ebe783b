// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.netty.channel.Channel;
import io.verbs4j.ConnectionException;
import io.verbs4j.ConnectionRequest;
import io.verbs4j.Listener;

/**
 * A listening socket; the handshakes of accepted sockets queue up here as {@link TcpConnectionRequest}s.
 */
final class TcpListener implements Listener
{
    private final TcpConnectionManager manager;
    private final String endpoint;
    private final LinkedBlockingQueue<TcpConnectionRequest> requests = new LinkedBlockingQueue<>();
    private volatile Channel serverChannel;
    private volatile boolean closed;

    TcpListener(final TcpConnectionManager manager, final String endpoint)
    {
        this.manager = manager;
        this.endpoint = endpoint;
    }

    void bind(final Channel channel)
    {
        this.serverChannel = channel;
    }

    /** {@inheritDoc} */
    public String endpoint()
    {
        return endpoint;
    }

    /** {@inheritDoc} */
    public ConnectionRequest accept(final Duration timeout)
    {
        Objects.requireNonNull(timeout, "timeout");
        if (closed)
        {
            throw new ConnectionException("listener " + endpoint + " is closed");
        }
        try
        {
            final TcpConnectionRequest request = requests.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
            if (null == request && closed)
            {
                throw new ConnectionException("listener " + endpoint + " was closed");
            }
            return request;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new ConnectionException("interrupted while accepting on " + endpoint, ex);
        }
    }

    /**
     * A handshake arrived (I/O thread).
     *
     * @param request the request.
     */
    void enqueue(final TcpConnectionRequest request)
    {
        if (closed)
        {
            request.reject("listener closed");
            return;
        }
        requests.add(request);
        if (closed)
        {
            rejectQueued();
        }
    }

    /** {@inheritDoc} */
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        final Channel channel = serverChannel;
        if (null != channel)
        {
            channel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        rejectQueued();
        manager.removeListener(this);
    }

    private void rejectQueued()
    {
        TcpConnectionRequest request;
        while (null != (request = requests.poll()))
        {
            try
            {
                request.reject("listener closed");
            }
            catch (final IllegalStateException ignore)
            {
                // Answered meanwhile.
            }
        }
    }
}

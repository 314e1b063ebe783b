// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.jmh;

import io.verbs4j.CompletionQueue;
import io.verbs4j.ConnectionRequest;
import io.verbs4j.Device;
import io.verbs4j.Listener;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.QueuePair;
import io.verbs4j.Verbs;
import io.verbs4j.config.DeviceContext;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The set-up the verbs JMH suites share: a server and a client device of one provider in this JVM, a listener on
 * the server (loopback tcp, or a fresh shm name), and the client's protection domain and completion queue; then
 * queue pairs connected through the connection manager ({@link #connectOnce}). One per trial, used from the trial's
 * set-up and tear-down thread (the accepting thread only uses the listener and the server); {@link #close} closes
 * both devices.
 */
final class DevicePair implements AutoCloseable
{
    /** Longest wait for a connection or an accept. */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(30);

    final Device server;
    final Device client;
    final Listener listener;
    private boolean listening = true;
    final ProtectionDomain clientPd;
    final CompletionQueue clientCq;

    /**
     * Opens both devices and the listener.
     *
     * @param provider      {@code shm} or {@code tcp}.
     * @param serverContext the server device's settings.
     * @param clientContext the client device's settings.
     * @param clientCqDepth entries of the client completion queue.
     */
    DevicePair(
        final String provider, final DeviceContext serverContext, final DeviceContext clientContext,
        final int clientCqDepth)
    {
        server = Verbs.open(provider, serverContext);
        client = Verbs.open(provider, clientContext);
        final String endpoint = "tcp".equals(provider) ? "tcp://127.0.0.1:0" :
            "shm://v4jjmh-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        listener = server.connectionManager().listen(endpoint);
        clientPd = client.allocateProtectionDomain();
        clientCq = client.createCompletionQueue(clientCqDepth);
    }

    /**
     * Connects {@code clientQp} to a server queue pair accepted on another thread.
     *
     * @param clientQp       the client's queue pair.
     * @param acceptServerQp accepts the request with the server's queue pair and private data.
     * @return the server's private data.
     * @throws InterruptedException if interrupted while waiting for the accepting thread.
     */
    byte[] connectOnce(final QueuePair clientQp, final Consumer<ConnectionRequest> acceptServerQp)
        throws InterruptedException
    {
        final AtomicReference<Throwable> acceptFailure = new AtomicReference<>();
        final Thread acceptor = new Thread(() ->
        {
            try
            {
                acceptServerQp.accept(listener.accept(CONNECT_TIMEOUT));
            }
            catch (final Throwable ex)
            {
                acceptFailure.set(ex);
            }
        }, "verbs4j-jmh-acceptor");
        acceptor.start();
        final byte[] reply = client.connectionManager().connect(clientQp, listener.endpoint(), new byte[0],
            CONNECT_TIMEOUT);
        acceptor.join();
        if (null != acceptFailure.get())
        {
            throw new IllegalStateException("accept failed", acceptFailure.get());
        }
        return reply;
    }

    /**
     * Closes the listener once no more connections are wanted, so it is not there while the data path is timed.
     */
    void stopListening()
    {
        if (listening)
        {
            listening = false;
            listener.close();
        }
    }

    /**
     * Closes the listener and both devices (with everything created on them).
     */
    @Override
    public void close()
    {
        stopListening();
        client.close();
        server.close();
    }
}

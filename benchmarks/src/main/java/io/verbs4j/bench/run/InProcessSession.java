// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.run;

import io.verbs4j.bench.spi.PingPongInitiator;
import io.verbs4j.bench.spi.PingPongTransport;
import io.verbs4j.bench.spi.Responder;
import io.verbs4j.bench.spi.SessionSpec;
import io.verbs4j.bench.spi.StreamInitiator;
import io.verbs4j.bench.spi.StreamTransport;
import io.verbs4j.bench.spi.TestKind;
import io.verbs4j.bench.spi.TransportUnderTest;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Both sides of one session in one JVM: the responder serves on a background thread over 127.0.0.1 (or the shm
 * file), the caller drives the initiator. Used by the JMH suites (with {@link SessionSpec#UNBOUNDED} iterations,
 * ended by {@link #close()}) and by tests.
 * <pre>
 * try (InProcessSession session = InProcessSession.open(spec))
 * {
 *     session.pingPong().roundTrip();
 * }
 * </pre>
 */
public final class InProcessSession implements AutoCloseable
{
    private static final String LOOPBACK = "127.0.0.1";
    private static final long JOIN_MS = 10_000;

    private final Responder responder;
    private final Thread responderThread;
    private final AtomicReference<Throwable> responderFailure;
    private final AutoCloseable initiator;

    private InProcessSession(
        final Responder responder,
        final Thread responderThread,
        final AtomicReference<Throwable> responderFailure,
        final AutoCloseable initiator)
    {
        this.responder = responder;
        this.responderThread = responderThread;
        this.responderFailure = responderFailure;
        this.initiator = initiator;
    }

    /**
     * Opens the responder (if the transport needs one), starts it, and connects the initiator.
     *
     * @param spec the session; its transport is a {@link PerftestTransport} name.
     * @return the running session.
     * @throws IOException              if either side cannot be set up.
     * @throws IllegalArgumentException if the transport is unknown or does not support the spec.
     */
    public static InProcessSession open(final SessionSpec spec) throws IOException
    {
        final PerftestTransport entry = PerftestTransport.find(spec.transport());
        final TransportUnderTest transport = null == entry ? null : entry.instance();
        if (null == transport || !transport.supports(spec.kind(), spec.messageBytes()))
        {
            throw new IllegalArgumentException(spec.transport() + " cannot run " + spec.kind().shortName() +
                " at " + spec.messageBytes() + " B");
        }
        Responder responder = null;
        Thread thread = null;
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        String endpoint = null;
        if (transport.needsPeer())
        {
            final Responder opened = transport.openResponder(spec, LOOPBACK);
            responder = opened;
            endpoint = opened.endpoint();
            thread = new Thread(() -> serve(opened, failure), "verbs4j-responder-" + spec.transport());
            thread.setDaemon(true);
            thread.start();
        }
        try
        {
            final AutoCloseable initiator = TestKind.LATENCY == spec.kind() ?
                ((PingPongTransport)transport).connectPingPong(spec, LOOPBACK, endpoint) :
                ((StreamTransport)transport).connectStream(spec, LOOPBACK, endpoint);
            return new InProcessSession(responder, thread, failure, initiator);
        }
        catch (final IOException | RuntimeException ex)
        {
            stop(responder, thread);
            throw ex;
        }
    }

    /**
     * The latency initiator.
     *
     * @return the initiator of a {@link TestKind#LATENCY} session.
     */
    public PingPongInitiator pingPong()
    {
        return (PingPongInitiator)initiator;
    }

    /**
     * The bandwidth initiator.
     *
     * @return the initiator of a {@link TestKind#BANDWIDTH} session.
     */
    public StreamInitiator stream()
    {
        return (StreamInitiator)initiator;
    }

    /**
     * Waits for the responder to finish a bounded session by itself.
     *
     * @param timeoutMs how long to wait.
     * @return the responder's failure, or {@code null} if it completed normally (or there is none).
     * @throws InterruptedException if interrupted.
     * @throws IllegalStateException if it is still running after the timeout.
     */
    public Throwable awaitResponder(final long timeoutMs) throws InterruptedException
    {
        if (null != responderThread)
        {
            responderThread.join(timeoutMs);
            if (responderThread.isAlive())
            {
                throw new IllegalStateException("responder still running after " + timeoutMs + " ms");
            }
        }
        return responderFailure.get();
    }

    /**
     * Closes only the initiator (idempotent), e.g. so that a one-sided responder, which serves until its peer
     * disconnects, can finish by itself before {@link #awaitResponder(long)}. Never throws.
     */
    public void closeInitiator()
    {
        try
        {
            initiator.close();
        }
        catch (final Exception ignore)
        {
            // Initiators do not throw from close(); the responder must be stopped regardless.
        }
    }

    /**
     * Closes the initiator, then stops the responder. Never throws.
     */
    @Override
    public void close()
    {
        closeInitiator();
        stop(responder, responderThread);
    }

    private static void stop(final Responder responder, final Thread thread)
    {
        if (null != responder)
        {
            responder.close();
        }
        if (null != thread)
        {
            try
            {
                thread.join(JOIN_MS);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void serve(final Responder responder, final AtomicReference<Throwable> failure)
    {
        try
        {
            responder.serve();
        }
        catch (final Throwable ex)
        {
            failure.set(ex);
        }
    }
}

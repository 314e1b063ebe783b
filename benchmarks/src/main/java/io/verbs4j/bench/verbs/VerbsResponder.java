// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.verbs;

import io.verbs4j.ConnectionRequest;
import io.verbs4j.Listener;
import io.verbs4j.QpState;
import io.verbs4j.bench.baseline.ServeGuard;
import io.verbs4j.bench.spi.Responder;
import io.verbs4j.bench.spi.SessionSpec;
import io.verbs4j.bench.spi.TestKind;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The passive side of every verbs test: listens, accepts one queue pair (sending its region's address and rkey as
 * private data), then
 * <ul>
 *     <li>WRITE latency: for each round trip waits for the initiator's byte in the last byte of its recv area, writes
 *     the same byte back with a signaled WRITE and polls that completion (ib_write_lat's server);</li>
 *     <li>SEND latency: waits for each receive completion, SENDs the reply, then re-posts the receive;</li>
 *     <li>SEND bandwidth: polls receive completions and re-posts each consumed receive until all messages came;</li>
 *     <li>everything else (READ, atomics, WRITE bandwidth) is one-sided: the application does nothing, like
 *     perftest's server, and only looks every millisecond whether the initiator has disconnected.</li>
 * </ul>
 * {@link #serve()} returns when the session is complete (two-sided tests) or the initiator has closed its queue pair
 * (one-sided tests).
 */
final class VerbsResponder implements Responder
{
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static final long ACCEPT_SLICE_MS = 100;
    private static final long PASSIVE_CHECK_NS = TimeUnit.MILLISECONDS.toNanos(1);

    private final VerbsSide side;
    private final Listener listener;
    private final String endpoint;
    private final ServeGuard guard;
    private volatile boolean closed;

    private VerbsResponder(final VerbsSide side, final Listener listener)
    {
        this.side = side;
        this.listener = listener;
        this.endpoint = listener.endpoint();
        this.guard = new ServeGuard(side.waitLoop);
    }

    /**
     * Opens the device, allocates the region and starts listening.
     *
     * @param provider    the verbs provider.
     * @param operation   the verb.
     * @param spec        the session.
     * @param bindAddress where tcp listens.
     * @return the responder.
     * @throws IOException if the device or listener cannot be set up.
     */
    static VerbsResponder open(
        final String provider, final VerbsOperation operation, final SessionSpec spec, final String bindAddress)
        throws IOException
    {
        final VerbsSide side;
        try
        {
            side = new VerbsSide(provider, operation, spec, bindAddress);
        }
        catch (final RuntimeException ex)
        {
            throw new IOException("cannot open verbs device '" + provider + "': " + ex.getMessage(), ex);
        }
        try
        {
            final String listen = "tcp".equals(provider) ?
                "tcp://" + uriHost(bindAddress) + ":0" :
                provider + "://v4jbench-" + ProcessHandle.current().pid() + "-" + NAMES.incrementAndGet();
            return new VerbsResponder(side, side.device.connectionManager().listen(listen));
        }
        catch (final RuntimeException ex)
        {
            side.close();
            throw new IOException("cannot listen: " + ex.getMessage(), ex);
        }
    }

    private static String uriHost(final String address)
    {
        return address.indexOf(':') >= 0 && !address.startsWith("[") ? "[" + address + "]" : address;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String endpoint()
    {
        return endpoint;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void serve() throws IOException, TimeoutException
    {
        guard.enter();
        try
        {
            accept();
            final boolean latency = TestKind.LATENCY == side.spec.kind();
            if (VerbsOperation.WRITE == side.operation && latency)
            {
                echoWrites();
            }
            else if (VerbsOperation.SEND == side.operation)
            {
                if (latency)
                {
                    echoSends();
                }
                else
                {
                    sinkSends();
                }
            }
            else
            {
                awaitDisconnect();
            }
        }
        finally
        {
            guard.exit();
        }
    }

    private void accept() throws IOException, TimeoutException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(side.spec.timeoutMs());
        ConnectionRequest request = null;
        while (null == request)
        {
            if (closed)
            {
                throw new TimeoutException("responder closed before the initiator connected");
            }
            if (System.nanoTime() - deadlineNs > 0)
            {
                throw new TimeoutException("no initiator connected within " + side.spec.timeoutMs() + " ms");
            }
            request = listener.accept(Duration.ofMillis(ACCEPT_SLICE_MS));
        }
        side.peer(request.privateData());
        side.createQueuePair();
        request.accept(side.qp, side.privateData());
        listener.close();
        side.prepareSend();
    }

    private void echoWrites() throws IOException, TimeoutException
    {
        final VerbsSide side = this.side;
        for (long seq = 1, total = side.spec.totalIterations(); seq <= total; seq++)
        {
            final byte mark = (byte)seq;
            side.awaitLastByte(mark);
            side.region.putByte(side.size - 1, mark);
            side.send.wrId(seq).flags(side.flags(true));
            side.postSend();
            side.awaitSend(seq);
        }
    }

    private void echoSends() throws IOException, TimeoutException
    {
        final VerbsSide side = this.side;
        final long total = side.spec.totalIterations();
        for (long seq = 1; seq <= total; seq++)
        {
            side.awaitReceives(seq);
            side.send.wrId(seq).flags(side.flags(true));
            side.postSend();
            // Replenished after the answer, off its path (see VerbsInitiator): the other pre-posted receives cover it.
            side.postRecv();
        }
        side.awaitSend(total);
    }

    private void sinkSends() throws IOException, TimeoutException
    {
        final VerbsSide side = this.side;
        final long total = side.spec.totalIterations();
        long reposted = 0;
        while (reposted < total)
        {
            side.awaitReceives(reposted + 1);
            for (long received = side.counter.receives(); reposted < received; reposted++)
            {
                side.postRecv();
            }
        }
    }

    private void awaitDisconnect() throws TimeoutException
    {
        while (QpState.RTS == side.qp.state())
        {
            if (closed)
            {
                throw new TimeoutException("responder closed");
            }
            side.cq.poll(side.counter, VerbsSide.POLL_LIMIT);
            LockSupport.parkNanos(PASSIVE_CHECK_NS);
        }
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void close()
    {
        closed = true;
        if (guard.closeAndAwait())
        {
            listener.close();
            side.close();
        }
    }
}

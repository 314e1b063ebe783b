// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.verbs;

import io.verbs4j.bench.spi.PingPongInitiator;
import io.verbs4j.bench.spi.PingPongTransport;
import io.verbs4j.bench.spi.Responder;
import io.verbs4j.bench.spi.SessionSpec;
import io.verbs4j.bench.spi.StreamInitiator;
import io.verbs4j.bench.spi.StreamTransport;
import io.verbs4j.bench.spi.TestKind;

import java.io.IOException;

/**
 * A verbs transport under test: one provider ({@code shm}, {@code tcp}) and one verb ({@link VerbsOperation}),
 * named {@code <provider>-<verb>}, e.g. {@code shm-write}, {@code tcp-atomic-cas}. Each session opens a device on
 * each side (so idle settings follow the session), connects one RC queue pair through the connection manager, and
 * exchanges region address and rkey as private data. See {@link VerbsInitiator} and {@link VerbsResponder} for the
 * measured loops.
 */
public final class VerbsTransport implements PingPongTransport, StreamTransport
{
    /** Largest message: the region holds two messages, and 1 GiB keeps both under the int SGE length. */
    public static final int MAX_MESSAGE_BYTES = 1 << 30;

    private final String provider;
    private final VerbsOperation operation;

    /**
     * @param provider  verbs provider name.
     * @param operation the verb measured.
     */
    public VerbsTransport(final String provider, final VerbsOperation operation)
    {
        this.provider = provider;
        this.operation = operation;
    }

    /**
     * @return the provider name.
     */
    public String provider()
    {
        return provider;
    }

    /**
     * @return the verb.
     */
    public VerbsOperation operation()
    {
        return operation;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public boolean supports(final TestKind kind, final int messageBytes)
    {
        if (operation.isAtomic())
        {
            return TestKind.LATENCY == kind && Long.BYTES == messageBytes;
        }
        return messageBytes >= 1 && messageBytes <= MAX_MESSAGE_BYTES;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public boolean halvesRoundTrip()
    {
        return !operation.isOneSidedLatency();
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String method(final TestKind kind)
    {
        final String inline = "inline <= " + VerbsSide.PERFTEST_INLINE_BYTES + " B (or the device max)";
        if (TestKind.BANDWIDTH == kind)
        {
            final String common = ", windows of TX depth posted back to back, unsignaled except every " +
                VerbsSide.CQ_MODERATION + "th and the last; a window ends when its last completion is polled";
            switch (operation)
            {
                case WRITE:
                    return "ib_write_bw: RDMA WRITE into the peer's region" + common + "; " + inline;
                case READ:
                    return "ib_read_bw: RDMA READ from the peer's region" + common;
                default:
                    return "ib_send_bw: SEND into receives the peer pre-posts (" + VerbsSide.SEND_BW_RX_DEPTH +
                        "+ deep) and re-posts as they complete" + common + "; " + inline;
            }
        }
        switch (operation)
        {
            case WRITE:
                return "ib_write_lat: each side WRITEs (signaled) into the other's region and polls the last byte " +
                    "of its own; latency = round trip / 2; " + inline;
            case SEND:
                return "ib_send_lat: SEND/RECV ping-pong, receives pre-posted, CQ polled for the RECV and the " +
                    "signaled SEND, receive re-posted; latency = round trip / 2; " + inline;
            case READ:
                return "ib_read_lat: one signaled RDMA READ, CQ polled; latency = FULL READ time (not halved)";
            default:
                return "ib_atomic_lat: one signaled 8-byte " + operation.title() +
                    ", CQ polled; latency = FULL atomic time (not halved)";
        }
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public Responder openResponder(final SessionSpec spec, final String bindAddress) throws IOException
    {
        return VerbsResponder.open(provider, operation, spec, bindAddress);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public PingPongInitiator connectPingPong(final SessionSpec spec, final String peerHost, final String endpoint)
        throws IOException
    {
        return VerbsInitiator.connect(provider, operation, spec, resolve(endpoint, peerHost));
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public StreamInitiator connectStream(final SessionSpec spec, final String peerHost, final String endpoint)
        throws IOException
    {
        return VerbsInitiator.connect(provider, operation, spec, resolve(endpoint, peerHost));
    }

    /**
     * A tcp listener bound to a wildcard address reports it as its host; the initiator then connects to the host it
     * reached the control connection on.
     */
    static String resolve(final String endpoint, final String peerHost)
    {
        final String prefix = "tcp://";
        if (null == peerHost || !endpoint.startsWith(prefix))
        {
            return endpoint;
        }
        final int colon = endpoint.lastIndexOf(':');
        final String host = endpoint.substring(prefix.length(), colon);
        if (!VerbsSide.isWildcard(host))
        {
            return endpoint;
        }
        final String peer = peerHost.indexOf(':') >= 0 ? "[" + peerHost + "]" : peerHost;
        return prefix + peer + endpoint.substring(colon);
    }
}

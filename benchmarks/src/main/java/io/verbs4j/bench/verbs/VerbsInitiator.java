// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.verbs;

import io.verbs4j.bench.spi.PingPongInitiator;
import io.verbs4j.bench.spi.SessionSpec;
import io.verbs4j.bench.spi.StreamInitiator;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * The active side of every verbs test. {@link #roundTrip()} is one latency sample, {@link #sendWindow(int)} one
 * bandwidth window; both allocate nothing.
 * <ul>
 *     <li>WRITE latency ({@code ib_write_lat}): store the sequence number's low byte into the last byte of the send
 *     area, post a signaled WRITE of the message into the peer's recv area, poll its completion, then spin until the
 *     peer's WRITE of the same byte lands in the last byte of the local recv area. The order is perftest's
 *     ({@code run_iter_lat_write}: post, poll the send CQ, wait for the peer's data): the completion is polled
 *     while the message travels, not after the answer came.</li>
 *     <li>SEND latency ({@code ib_send_lat}): post a signaled SEND, re-post the receive the previous answer took,
 *     poll the CQ until the peer's SEND has filled a pre-posted receive and the own SEND has completed. The receive
 *     is replenished after the SEND, not before it as {@code ib_send_lat} does: with
 *     {@value VerbsSide#LATENCY_DEPTH} receives pre-posted none is missing, and the re-post overlaps the message's
 *     flight, as the ping-pongs of MPI and UCX post theirs.</li>
 *     <li>READ / atomic latency ({@code ib_read_lat}, {@code ib_atomic_lat}): post one signaled READ (or atomic)
 *     and poll its completion; the target's application does nothing.</li>
 *     <li>Bandwidth ({@code ib_*_bw}): post the window back to back, unsignaled except every
 *     {@value VerbsSide#CQ_MODERATION}th and the last; the window ends when the last one's completion is polled
 *     (an RC completion means the peer has the data, or for READ, that it has arrived).</li>
 * </ul>
 */
final class VerbsInitiator implements PingPongInitiator, StreamInitiator
{
    private final VerbsSide side;
    private long seq;
    private long expectedCompare;

    VerbsInitiator(final VerbsSide side)
    {
        this.side = side;
    }

    /**
     * Connects a new side to the responder at {@code endpoint}.
     *
     * @param provider  the verbs provider.
     * @param operation the verb.
     * @param spec      the session.
     * @param endpoint  the responder's listener endpoint.
     * @return the connected initiator.
     * @throws IOException if the connection fails.
     */
    static VerbsInitiator connect(
        final String provider, final VerbsOperation operation, final SessionSpec spec, final String endpoint)
        throws IOException
    {
        final VerbsSide side = new VerbsSide(provider, operation, spec, null);
        try
        {
            side.createQueuePair();
            side.peer(side.device.connectionManager().connect(
                side.qp, endpoint, side.privateData(), Duration.ofMillis(spec.timeoutMs())));
            side.prepareSend();
            return new VerbsInitiator(side);
        }
        catch (final IOException | RuntimeException ex)
        {
            side.close();
            throw ex instanceof IOException ? (IOException)ex : new IOException(ex.getMessage(), ex);
        }
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void roundTrip() throws IOException, TimeoutException
    {
        final VerbsSide side = this.side;
        final long wrId = ++seq;
        switch (side.operation)
        {
            case WRITE:
            {
                final byte mark = (byte)wrId;
                side.region.putByte(side.size - 1, mark);
                side.send.wrId(wrId).flags(side.flags(true));
                side.postSend();
                side.awaitSend(wrId);
                side.awaitLastByte(mark);
                break;
            }
            case SEND:
                side.send.wrId(wrId).flags(side.flags(true));
                side.postSend();
                if (wrId > 1)
                {
                    // The receive the previous answer took, replenished while this message travels.
                    side.postRecv();
                }
                side.awaitReceives(wrId);
                side.awaitSend(wrId);
                break;
            case CMP_AND_SWP:
                side.send.wrId(wrId).flags(side.flags(true)).atomic(expectedCompare, expectedCompare + 1);
                side.postSend();
                side.awaitSend(wrId);
                if (side.region.getLong(0) != expectedCompare)
                {
                    throw new IOException("CMP_AND_SWP returned " + side.region.getLong(0) + ", expected " +
                        expectedCompare);
                }
                expectedCompare++;
                break;
            default:
                side.send.wrId(wrId).flags(side.flags(true));
                side.postSend();
                side.awaitSend(wrId);
                break;
        }
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void sendWindow(final int messages) throws IOException, TimeoutException
    {
        final VerbsSide side = this.side;
        for (int i = 1; i <= messages; i++)
        {
            final long wrId = ++seq;
            side.send.wrId(wrId).flags(side.flags(i == messages || 0 == i % VerbsSide.CQ_MODERATION));
            side.postSend();
        }
        side.awaitSend(seq);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void close()
    {
        side.close();
    }
}

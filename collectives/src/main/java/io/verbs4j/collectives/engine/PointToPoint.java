// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.engine;

import io.verbs4j.collectives.algorithm.Steps;
import io.verbs4j.collectives.link.Links;
import io.verbs4j.collectives.link.MemView;

/**
 * Send, Recv and SendRecv: one exchange with up to two peers over the communicator's links (never the flag links),
 * whatever the size. Binds the call's buffers ({@link BufferBinder}), starts the operation's clock
 * ({@link CollectiveEngine#beginOnLinks}), runs the exchange, and copies a staged receive out. Runs on the engine's
 * thread, one operation at a time.
 */
final class PointToPoint
{
    private final CollectiveEngine engine;
    private final BufferBinder buffers;
    private final Steps steps;
    private final Links links;
    private final MemView sendView;
    private final MemView recvView;

    /**
     * @param engine  the engine (operation clock).
     * @param buffers the engine's buffer binding.
     * @param steps   the primitives over the communicator's links.
     * @param links   the communicator's links.
     */
    PointToPoint(final CollectiveEngine engine, final BufferBinder buffers, final Steps steps, final Links links)
    {
        this.engine = engine;
        this.buffers = buffers;
        this.steps = steps;
        this.links = links;
        this.sendView = buffers.sendView();
        this.recvView = buffers.recvView();
    }

    /**
     * Runs a SEND, RECV or SEND_RECV request.
     *
     * @param r the arguments.
     */
    void run(final OpRequest r)
    {
        final int es = r.type.sizeBytes();
        final long sendBytes = OpKind.RECV == r.kind ? 0 : r.count * es;
        final long recvBytes = OpKind.SEND == r.kind ? 0 : (OpKind.RECV == r.kind ? r.count : r.recvCount) * es;
        engine.beginOnLinks(r, sendBytes + recvBytes, r.type, null, null);
        if (sendBytes > 0)
        {
            buffers.bindOne(r.send, sendBytes, sendView, Scratch.SEND_STAGE, true);
        }
        if (recvBytes > 0)
        {
            buffers.bindOne(r.recv, recvBytes, recvView, Scratch.RECV_STAGE, false);
        }
        final int to = OpKind.RECV == r.kind ? -1 : r.root;
        final int from = OpKind.SEND == r.kind ? -1 : (OpKind.RECV == r.kind ? r.root : r.peer2);
        steps.exchange(to < 0 ? null : links.link(to), sendView, 0, sendBytes,
            from < 0 ? null : links.link(from), recvView, 0, recvBytes, Steps.COPY, r.type, null, null, 0, false);
        if (recvBytes > 0)
        {
            buffers.copyOut(r.recv, recvView, 0, recvBytes);
        }
    }
}

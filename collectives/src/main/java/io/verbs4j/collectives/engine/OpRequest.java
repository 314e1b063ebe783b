// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.engine;

import io.verbs4j.collectives.Algorithm;
import io.verbs4j.collectives.CommBuffer;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;

/**
 * The arguments of one operation: a reusable, mutable descriptor (one per blocking caller, one per non-blocking
 * handle), so issuing an operation allocates nothing.
 */
public final class OpRequest
{
    /** Operation. */
    public OpKind kind;
    /** Send buffer (or the only buffer). */
    public CommBuffer send;
    /** Receive buffer. */
    public CommBuffer recv;
    /** Elements (per rank for the gather/scatter family; sent elements for SEND_RECV). */
    public long count;
    /** Received elements of SEND_RECV. */
    public long recvCount;
    /** Element type. */
    public DataType type;
    /** Reduction operator. */
    public ReduceOp op;
    /** Root of rooted operations; peer of SEND/RECV; destination of SEND_RECV. */
    public int root;
    /** Source of SEND_RECV. */
    public int peer2;
    /** Algorithm override ({@link Algorithm#AUTO}: the communicator's default). */
    public Algorithm algorithm = Algorithm.AUTO;
    /** Buffers of a fused AllReduce. */
    public CommBuffer[] fused;
    /** Their element counts. */
    public long[] fusedCounts;
    /** BARRIER only: the final barrier of {@code close()}, whose messages tell the peers that this rank leaves. */
    public boolean leaving;

    /**
     * Sets the common fields and clears the rest.
     *
     * @param kind  operation.
     * @param send  send buffer.
     * @param recv  receive buffer.
     * @param count elements.
     * @param type  type.
     * @param op    operator.
     * @param root  root or peer.
     * @return this.
     */
    public OpRequest set(final OpKind kind, final CommBuffer send, final CommBuffer recv, final long count,
        final DataType type, final ReduceOp op, final int root)
    {
        this.kind = kind;
        this.send = send;
        this.recv = recv;
        this.count = count;
        this.recvCount = 0;
        this.type = type;
        this.op = op;
        this.root = root;
        this.peer2 = -1;
        this.algorithm = Algorithm.AUTO;
        this.fused = null;
        this.fusedCounts = null;
        this.leaving = false;
        return this;
    }

    /** Drops references to user buffers. */
    public void clear()
    {
        send = null;
        recv = null;
        fused = null;
        fusedCounts = null;
    }
}

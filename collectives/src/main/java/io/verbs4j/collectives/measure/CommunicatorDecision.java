// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.measure;

import io.verbs4j.collectives.CommBuffer;
import io.verbs4j.collectives.Communicator;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;

/**
 * {@link SharedDecision} over a communicator: a broadcast of one {@code int64} from rank 0, and an AllReduce (MAX) of
 * one {@code int64} for {@link #max}. Each costs one small collective per window (tens of milliseconds of calls),
 * outside the window's timing.
 */
public final class CommunicatorDecision implements SharedDecision
{
    private final Communicator comm;
    private final long[] value = new long[1];
    private final CommBuffer buffer = CommBuffer.of(value);

    /**
     * @param comm the communicator the warmed-up calls run on.
     */
    public CommunicatorDecision(final Communicator comm)
    {
        this.comm = comm;
    }

    /** {@inheritDoc} */
    @Override
    public long share(final long mine)
    {
        value[0] = mine;
        comm.broadcast(buffer, 1, DataType.INT64, 0);
        return value[0];
    }

    /** {@inheritDoc} */
    @Override
    public long max(final long mine)
    {
        value[0] = mine;
        comm.allReduce(buffer, buffer, 1, DataType.INT64, ReduceOp.MAX);
        return value[0];
    }
}

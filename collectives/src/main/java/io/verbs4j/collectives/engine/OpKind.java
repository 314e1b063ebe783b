// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.engine;

/** The operations a communicator runs, with the names used in messages. */
public enum OpKind
{
    /** AllReduce. */
    ALL_REDUCE("allReduce"),
    /** AllReduce of several buffers fused into one. */
    ALL_REDUCE_FUSED("allReduceFused"),
    /** Broadcast. */
    BROADCAST("broadcast"),
    /** Reduce. */
    REDUCE("reduce"),
    /** AllGather. */
    ALL_GATHER("allGather"),
    /** ReduceScatter. */
    REDUCE_SCATTER("reduceScatter"),
    /** AllToAll. */
    ALL_TO_ALL("allToAll"),
    /** Gather. */
    GATHER("gather"),
    /** Scatter. */
    SCATTER("scatter"),
    /** Barrier. */
    BARRIER("barrier"),
    /** Point-to-point send. */
    SEND("send"),
    /** Point-to-point receive. */
    RECV("recv"),
    /** Fused send and receive. */
    SEND_RECV("sendRecv"),
    /** Cost-model calibration at creation. */
    CALIBRATE("calibrate"),
    /** Flag-link set-up at creation. */
    SETUP("flag-link setup");

    private final String label;

    OpKind(final String label)
    {
        this.label = label;
    }

    /** @return the method-style name. */
    public String label()
    {
        return label;
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.observe;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * One collective operation, as a JDK Flight Recorder event ({@code io.verbs4j.Collective}): its duration, the
 * communicator, operation, size, algorithm and outcome. Enabled by default in a recording; with no recording running
 * it costs one flag check per operation.
 * <p>
 * The engine reuses one instance per communicator (begin, end, commit, then again), so recording allocates nothing
 * per operation; not thread-safe, like the engine.
 */
@Name("io.verbs4j.Collective")
@Label("Collective")
@Category({"verbs4j", "Collectives"})
@Description("One collective operation of a verbs4j communicator")
@StackTrace(false)
public final class CollectiveEvent extends Event
{
    /** Communicator name. */
    @Label("Communicator")
    public String communicator;

    /** This rank. */
    @Label("Rank")
    public int rank;

    /** Ranks in the communicator. */
    @Label("Size")
    public int size;

    /** Sequence number of the operation on this rank. */
    @Label("Sequence")
    public long sequence;

    /** Operation name, e.g. allReduce. */
    @Label("Operation")
    public String operation;

    /** Bytes per rank. */
    @Label("Bytes")
    @DataAmount
    public long bytes;

    /** Algorithm, where one was chosen. */
    @Label("Algorithm")
    public String algorithm;

    /** "ok", or the failure reason. */
    @Label("Outcome")
    public String outcome;
}

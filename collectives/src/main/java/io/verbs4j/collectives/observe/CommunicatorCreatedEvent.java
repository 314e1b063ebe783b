// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.observe;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;

/**
 * A communicator was created ({@code io.verbs4j.CommunicatorCreated}); the event's duration is the time from the
 * call to a connected, calibrated communicator.
 */
@Name("io.verbs4j.CommunicatorCreated")
@Label("Communicator created")
@Category({"verbs4j", "Collectives"})
@Description("A verbs4j communicator connected its ranks")
public final class CommunicatorCreatedEvent extends Event
{
    /** Communicator name. */
    @Label("Communicator")
    public String communicator;

    /** This rank. */
    @Label("Rank")
    public int rank;

    /** Ranks. */
    @Label("Size")
    public int size;

    /** Transport to each peer, e.g. "shm,self,tcp". */
    @Label("Transports")
    public String transports;

    /** Peers reached through flag links (same-host direct memory). */
    @Label("Flag-link peers")
    public int flagLinkPeers;
}

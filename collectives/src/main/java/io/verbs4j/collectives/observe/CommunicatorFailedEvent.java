// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.observe;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** A communicator failed ({@code io.verbs4j.CommunicatorFailed}): the reason, the peer blamed, the message. */
@Name("io.verbs4j.CommunicatorFailed")
@Label("Communicator failed")
@Category({"verbs4j", "Collectives"})
@Description("A verbs4j communicator failed; later operations on it are refused")
public final class CommunicatorFailedEvent extends Event
{
    /** Communicator name. */
    @Label("Communicator")
    public String communicator;

    /** This rank. */
    @Label("Rank")
    public int rank;

    /** The reason (a CollectiveException.Reason name). */
    @Label("Reason")
    public String reason;

    /** The peer involved, or -1. */
    @Label("Peer")
    public int peer;

    /** The exception message. */
    @Label("Message")
    public String message;
}

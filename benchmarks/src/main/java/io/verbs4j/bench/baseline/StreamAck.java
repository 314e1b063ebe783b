// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

import java.io.IOException;

/**
 * The 8-byte acknowledgement a TCP bandwidth responder sends at the end of each window: the total number of
 * messages it has received so far in the session, big-endian. The initiator checks it against what it sent.
 */
final class StreamAck
{
    /** Length of the acknowledgement on the wire. */
    static final int LENGTH = Long.BYTES;

    private StreamAck()
    {
    }

    /**
     * Checks an acknowledgement.
     *
     * @param acked    the value received.
     * @param expected messages sent so far.
     * @throws IOException if they differ.
     */
    static void verify(final long acked, final long expected) throws IOException
    {
        if (acked != expected)
        {
            throw new IOException("responder acknowledged " + acked + " messages, " + expected + " were sent");
        }
    }
}

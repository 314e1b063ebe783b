// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.spi;

import java.io.IOException;

/**
 * A transport measurable with streaming bandwidth (see {@link StreamInitiator} for the window protocol).
 */
public interface StreamTransport extends TransportUnderTest
{
    /**
     * Client side: connects to a responder opened with the same {@code spec}.
     *
     * @param spec     the session, identical to the responder's.
     * @param peerHost host of the responder; {@code null} when {@link #needsPeer()} is {@code false}.
     * @param endpoint the responder's {@link Responder#endpoint()}; {@code null} when {@link #needsPeer()} is
     *                 {@code false}.
     * @return a connected initiator; the caller closes it.
     * @throws IOException if the connection cannot be made.
     */
    StreamInitiator connectStream(SessionSpec spec, String peerHost, String endpoint) throws IOException;
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

import io.verbs4j.bench.spi.Responder;
import io.verbs4j.bench.spi.SessionSpec;
import io.verbs4j.bench.spi.StreamInitiator;
import io.verbs4j.bench.spi.StreamTransport;
import io.verbs4j.bench.spi.TestKind;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Baseline {@code shm-memcpy}: streaming bandwidth through Agrona's
 * {@link org.agrona.concurrent.ringbuffer.OneToOneRingBuffer} over a file mapped from {@code /dev/shm} (geometry in
 * {@link ShmRingLayout}), the ring a Java shm transport would use rather than write. Each message is copied twice: by
 * the initiator from its private off-heap buffer into the ring ({@code write}), and by the responder from the ring
 * into its private off-heap buffer (in the {@code read} handler; Agrona then zeroes the consumed records) — the
 * two-copy pattern of a shm message ring. The window ends when the consumer position reaches the producer position.
 * Bandwidth only; same host only.
 */
public final class ShmRingTransport implements StreamTransport
{
    /**
     * {@inheritDoc}
     */
    @Override
    public boolean supports(final TestKind kind, final int messageBytes)
    {
        return TestKind.BANDWIDTH == kind && messageBytes >= 1 && messageBytes <= ShmRingLayout.MAX_MESSAGE_BYTES;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public Responder openResponder(final SessionSpec spec, final String bindAddress) throws IOException
    {
        return new ShmRingConsumer(spec, MappedFile.create("ring", ShmRingLayout.fileLength(spec.messageBytes())));
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public StreamInitiator connectStream(final SessionSpec spec, final String peerHost, final String endpoint)
        throws IOException
    {
        return new ShmRingProducer(
            spec, MappedFile.openAndUnlink(Path.of(endpoint), ShmRingLayout.fileLength(spec.messageBytes())));
    }
}

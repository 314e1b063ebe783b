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
 * Baseline {@code shm-memcpy}: streaming bandwidth through a ring in a file mapped from {@code /dev/shm} (layout in
 * {@link ShmRingLayout}). Each message is copied twice with {@code Unsafe.copyMemory}: by the initiator from its
 * private off-heap buffer into a slot, and by the responder from the slot into its private off-heap buffer — the
 * two-copy pattern a shm message ring has. The window ends when the consumer counter reaches the producer counter.
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

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

import io.verbs4j.bench.spi.PingPongInitiator;
import io.verbs4j.bench.spi.PingPongTransport;
import io.verbs4j.bench.spi.Responder;
import io.verbs4j.bench.spi.SessionSpec;
import io.verbs4j.bench.spi.TestKind;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Baseline {@code shm-cacheline}: two processes ping-pong one 8-byte sequence word through a file mapped from
 * {@code /dev/shm} (layout in {@link CacheLineLayout}) — the raw cache-line transfer cost the verbs shm targets are
 * ratios of. Latency only, 8-byte messages only; same host only.
 */
public final class ShmCacheLineTransport implements PingPongTransport
{
    /** The only message size: one sequence word. */
    public static final int MESSAGE_BYTES = Long.BYTES;

    /**
     * {@inheritDoc}
     */
    @Override
    public boolean supports(final TestKind kind, final int messageBytes)
    {
        return TestKind.LATENCY == kind && MESSAGE_BYTES == messageBytes;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public Responder openResponder(final SessionSpec spec, final String bindAddress) throws IOException
    {
        return new CacheLineResponder(spec, MappedFile.create("cacheline", CacheLineLayout.LENGTH));
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public PingPongInitiator connectPingPong(final SessionSpec spec, final String peerHost, final String endpoint)
        throws IOException
    {
        return new CacheLineInitiator(spec, MappedFile.openAndUnlink(Path.of(endpoint), CacheLineLayout.LENGTH));
    }
}

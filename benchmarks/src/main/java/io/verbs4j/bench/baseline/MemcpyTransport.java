// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

import io.verbs4j.bench.spi.Responder;
import io.verbs4j.bench.spi.SessionSpec;
import io.verbs4j.bench.spi.StreamInitiator;
import io.verbs4j.bench.spi.StreamTransport;
import io.verbs4j.bench.spi.TestKind;

/**
 * Baseline {@code memcpy}: single-thread {@code Unsafe.copyMemory} between two page-aligned, pre-touched off-heap
 * buffers of the message size, in the initiator's JVM (no peer). Each "message" is one copy; the physical ceiling
 * for any copy-based transport on this machine.
 */
public final class MemcpyTransport implements StreamTransport
{
    /** Largest copy. */
    public static final int MAX_MESSAGE_BYTES = 1 << 30;

    /**
     * {@inheritDoc}
     */
    @Override
    public boolean needsPeer()
    {
        return false;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public boolean supports(final TestKind kind, final int messageBytes)
    {
        return TestKind.BANDWIDTH == kind && messageBytes >= 1 && messageBytes <= MAX_MESSAGE_BYTES;
    }

    /**
     * Not applicable: this baseline has no responder.
     *
     * @throws IllegalStateException always: memcpy has no peer ({@link #needsPeer()} is false).
     */
    @Override
    public Responder openResponder(final SessionSpec spec, final String bindAddress)
    {
        throw new IllegalStateException("memcpy runs in the initiator's JVM and has no responder");
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public StreamInitiator connectStream(final SessionSpec spec, final String peerHost, final String endpoint)
    {
        return new MemcpyInitiator(spec.messageBytes());
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

import io.verbs4j.QueuePairConfig;
import io.verbs4j.VerbsException;
import io.verbs4j.spi.AbstractMemoryRegion;
import io.verbs4j.spi.AbstractProtectionDomain;
import io.verbs4j.spi.AbstractQueuePair;
import io.verbs4j.spi.MappedMemory;
import io.verbs4j.spi.RegionMemory;
import org.agrona.BufferUtil;

/**
 * Protection domain of the tcp provider: allocated regions are mapped from files that are unlinked right after
 * mapping (the mapping keeps the memory; nothing is left behind if the process dies).
 */
final class TcpProtectionDomain extends AbstractProtectionDomain
{
    private final TcpDevice device;

    TcpProtectionDomain(final TcpDevice device)
    {
        super(device);
        this.device = device;
    }

    /** {@inheritDoc} */
    protected AbstractMemoryRegion newAllocatedRegion(final long length, final int access, final int lkey,
        final int rkey)
    {
        final Path dir = Path.of(device.configuration().memoryDir());
        final Path file = dir.resolve("verbs4j-tcp-" + ProcessHandle.current().pid() + "-" +
            Long.toHexString(ThreadLocalRandom.current().nextLong()));
        final RegionMemory memory = MappedMemory.create(file, length, TcpConfiguration.MEMORY_DIR_PROP_NAME);
        try
        {
            Files.deleteIfExists(file);
        }
        catch (final IOException ex)
        {
            MappedMemory.unmap(memory);
            throw new VerbsException("cannot unlink " + file + " after mapping it: " + ex, ex);
        }
        return new TcpMemoryRegion(this, memory, lkey, rkey, access, true);
    }

    /** {@inheritDoc} */
    protected AbstractMemoryRegion newRegisteredRegion(
        final ByteBuffer buffer, final int access, final int lkey, final int rkey)
    {
        final RegionMemory memory = RegionMemory.contiguous(
            BufferUtil.address(buffer) + buffer.position(), buffer.remaining(), buffer);
        return new TcpMemoryRegion(this, memory, lkey, rkey, access, false);
    }

    /** {@inheritDoc} */
    protected AbstractQueuePair newQueuePair(final QueuePairConfig config, final int qpNumber)
    {
        return new TcpQueuePair(this, config, qpNumber);
    }
}

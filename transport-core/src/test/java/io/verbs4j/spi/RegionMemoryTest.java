// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

import org.agrona.BufferUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RegionMemoryTest
{
    @Test
    void shouldSplitCopiesAtChunkBoundaries(@TempDir final Path dir) throws Exception
    {
        final long length = (2L << 30) + 4096;
        final Path file = dir.resolve("big");
        final RegionMemory memory = MappedMemory.create(file, length, "test.dir");
        try
        {
            assertEquals(3, memory.chunkCount());
            assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(file)));
            final byte[] data = new byte[8192];
            for (int i = 0; i < data.length; i++)
            {
                data[i] = (byte)(i * 31);
            }
            final long offset = (1L << 30) - 4096;
            memory.copyFrom(data, 0, offset, data.length);
            final byte[] back = new byte[data.length];
            memory.copyTo(offset, back, 0, back.length);
            assertArrayEquals(data, back);
            assertEquals(4096, memory.contiguousLength(offset));
            final RegionMemory other = MappedMemory.create(dir.resolve("small"), 8192, "test.dir");
            RegionMemory.copy(memory, offset, other, 0, 8192);
            final byte[] copied = new byte[8192];
            other.copyTo(0, copied, 0, 8192);
            assertArrayEquals(data, copied);
            MappedMemory.unmap(other);
        }
        finally
        {
            MappedMemory.unmap(memory);
        }
    }

    @Test
    void shouldCopyBetweenOneBlockMemoriesAtOnceAndStillSplitAtTheChunksOfSeparateBlocks()
    {
        final int chunk = 4096;
        final ByteBuffer[] chunks = {ByteBuffer.allocateDirect(chunk), ByteBuffer.allocateDirect(chunk),
            ByteBuffer.allocateDirect(chunk)};
        final long[] addresses = new long[chunks.length];
        for (int i = 0; i < chunks.length; i++)
        {
            addresses[i] = BufferUtil.address(chunks[i]);
        }
        // three blocks anywhere in memory: a copy across them must go chunk by chunk
        final RegionMemory split = RegionMemory.chunked(addresses, 12, 3L * chunk, chunks);
        final ByteBuffer oneChunk = ByteBuffer.allocateDirect(chunk);
        final RegionMemory single = RegionMemory.chunked(new long[]{BufferUtil.address(oneChunk)}, 12, chunk,
            new Object[]{oneChunk});
        final ByteBuffer a = ByteBuffer.allocateDirect(3 * chunk);
        final ByteBuffer b = ByteBuffer.allocateDirect(3 * chunk);
        final RegionMemory contiguousA = RegionMemory.contiguous(BufferUtil.address(a), 3L * chunk, a);
        final RegionMemory contiguousB = RegionMemory.contiguous(BufferUtil.address(b), 3L * chunk, b);
        final byte[] data = new byte[2 * chunk];
        for (int i = 0; i < data.length; i++)
        {
            data[i] = (byte)(i * 7 + 3);
        }
        contiguousA.copyFrom(data, 0, 100, data.length);

        RegionMemory.copy(contiguousA, 100, contiguousB, 8, data.length);
        final byte[] back = new byte[data.length];
        contiguousB.copyTo(8, back, 0, back.length);
        assertArrayEquals(data, back);

        RegionMemory.copy(contiguousB, 8, split, chunk - 50, data.length);
        for (int i = 0; i < data.length; i++)
        {
            final long at = chunk - 50 + i;
            assertEquals(data[i], chunks[(int)(at / chunk)].get((int)(at % chunk)), "byte " + i);
        }
        java.util.Arrays.fill(back, (byte)0);
        RegionMemory.copy(split, chunk - 50, single, 0, chunk);
        single.copyTo(0, back, 0, chunk);
        assertArrayEquals(java.util.Arrays.copyOf(data, chunk), java.util.Arrays.copyOf(back, chunk));

        // native-address variants, one block and split
        final ByteBuffer scratch = ByteBuffer.allocateDirect(2 * chunk);
        final long scratchAddress = BufferUtil.address(scratch);
        split.copyTo(chunk - 50, scratchAddress, data.length);
        contiguousB.copyFrom(scratchAddress, 1, data.length);
        java.util.Arrays.fill(back, (byte)0);
        contiguousB.copyTo(1, back, 0, back.length);
        assertArrayEquals(data, back);
        contiguousB.copyTo(1, scratchAddress, data.length);
        split.copyFrom(scratchAddress, 10, data.length);
        for (int i = 0; i < data.length; i++)
        {
            final long at = 10 + i;
            assertEquals(data[i], chunks[(int)(at / chunk)].get((int)(at % chunk)), "byte " + i + " at 10");
        }
    }

    @Test
    void shouldRefuseToCreateOverAnExistingFileAndLeaveNothingBehind(@TempDir final Path dir) throws Exception
    {
        final Path file = dir.resolve("taken");
        Files.writeString(file, "x");
        assertThrows(io.verbs4j.VerbsException.class, () -> MappedMemory.create(file, 64, "test.dir"));
        assertTrue(Files.exists(file), "an existing file is not ours to delete");
    }
}

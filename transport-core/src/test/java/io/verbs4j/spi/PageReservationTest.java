// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import io.verbs4j.MemoryReservationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The reservation's contract that does not need a full file system (TinyTmpfsSystemTest fills a real one): every
 * byte is written (odd lengths, several chunks), and a segment larger than the free space is refused up front with a
 * message that names the directory, the size, the free space and the remedy, leaving no file.
 */
class PageReservationTest
{
    @Test
    void shouldWriteEveryByteOfTheSegment(@TempDir final Path dir) throws Exception
    {
        final long length = 2L * PageReservation.ZERO_CHUNK_LENGTH + 4097;
        final Path file = dir.resolve("segment");
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
            StandardOpenOption.WRITE))
        {
            PageReservation.reserve(channel, file, length, "some.dir");
            assertEquals(length, channel.size(), "the file grew to the segment, write by write");
            final ByteBuffer tail = ByteBuffer.allocate(4097);
            channel.read(tail, length - 4097);
            for (int i = 0; i < tail.capacity(); i++)
            {
                assertEquals(0, tail.get(i));
            }
        }
    }

    @Test
    void shouldRefuseASegmentLargerThanTheFreeSpaceAndSayWhatToDo(@TempDir final Path dir)
    {
        final Path file = dir.resolve("too-big.mr");
        final long free = PageReservation.freeBytes(file);
        assertTrue(free > 0, "the temporary directory reports its free space");
        final long asked = free + (1L << 40);
        final MemoryReservationException ex = assertThrows(MemoryReservationException.class,
            () -> MappedMemory.create(file, asked, "verbs4j.some.dir"));
        final String message = ex.getMessage();
        assertEquals(asked, ex.requestedBytes());
        assertEquals(dir.toString(), ex.directory());
        assertTrue(ex.freeBytes() >= 0 && ex.freeBytes() < asked, message);
        for (final String part : new String[]{dir.toString(), Long.toString(asked), "free", "--shm-size",
            "verbs4j.some.dir", "too-big.mr"})
        {
            assertTrue(message.contains(part), "the message names " + part + ": " + message);
        }
        assertFalse(Files.exists(file), "a refused segment leaves no file");
    }
}

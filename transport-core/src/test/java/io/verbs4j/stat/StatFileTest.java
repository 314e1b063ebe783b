// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.stat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StatFileTest
{
    @TempDir
    Path dir;

    @Test
    void shouldReadBackWhatItWrote() throws Exception
    {
        final StatSnapshot written = new StatSnapshot(4242, "java -jar x.jar", 1_700_000_000_000L, List.of(
            new StatSnapshot.Counter("tcp device 1", "payload bytes sent", 123),
            new StatSnapshot.Counter("tcp device 1", "RNR retries", 0),
            new StatSnapshot.Counter("communicator 'c' rank 0 of 2", "collectives completed", Long.MAX_VALUE)));

        final Path file = StatFile.write(dir, written);

        assertEquals(dir.resolve("verbs4j-4242.stat"), file);
        assertEquals(written, StatFile.read(file));
        assertFalse(Files.exists(dir.resolve("verbs4j-4242.stat.tmp")));
    }

    @Test
    void shouldReplaceTabsAndLineBreaksInNames() throws Exception
    {
        final StatSnapshot written = new StatSnapshot(7, "a\tb\nc", 1, List.of(
            new StatSnapshot.Counter("g\t1", "x\ny", 5)));

        final StatSnapshot read = StatFile.read(StatFile.write(dir, written));

        assertEquals("a b c", read.command());
        assertEquals(new StatSnapshot.Counter("g 1", "x y", 5), read.counters().get(0));
    }

    @Test
    void shouldTakeThePidFromTheFileName()
    {
        assertEquals(31, StatFile.pidOf(Path.of("/dev/shm/verbs4j-31.stat")));
        assertEquals(-1, StatFile.pidOf(Path.of("/dev/shm/verbs4j-31.stat.tmp")));
        assertEquals(-1, StatFile.pidOf(Path.of("/dev/shm/verbs4j-x.stat")));
        assertEquals(-1, StatFile.pidOf(Path.of("/dev/shm/other-31.stat")));
    }

    @Test
    void shouldNameTheFileAndLineOfABadFile() throws Exception
    {
        final Path notStat = Files.writeString(dir.resolve("verbs4j-1.stat"), "hello\n");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> StatFile.read(notStat)).getMessage()
            .contains("is not a verbs4j counters file"));

        final Path badLine = Files.writeString(dir.resolve("verbs4j-2.stat"),
            StatFile.MAGIC + "\npid\t2\ntime\t3\ncommand\tjava\ngroup only\n");
        final String message = assertThrows(IllegalArgumentException.class, () -> StatFile.read(badLine)).getMessage();
        assertTrue(message.contains("verbs4j-2.stat line 5: expected GROUP<tab>LABEL<tab>VALUE"), message);
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.rendezvous;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FileStoreTest extends AbstractRendezvousStoreTest
{
    private final Path directory = TestFiles.createTempDirectory("filestore-test");

    @Override
    RendezvousStore newHandle()
    {
        return new FileStore(directory);
    }

    @Override
    void closeBackend()
    {
        TestFiles.deleteRecursively(directory);
    }

    @Test
    void shouldKeepKeyFilesInsideTheDirectoryWithSafeNames()
    {
        final FileStore store = (FileStore)handle();
        final Path file = store.fileOf("../escape/attempt");
        assertEquals(directory, file.getParent());
        assertEquals("k_..%2Fescape%2Fattempt", file.getFileName().toString());
        assertTrue(store.fileOf("y".repeat(500)).getFileName().toString().startsWith("h_"), "long keys are hashed");
    }

    @Test
    void shouldLeaveNoTemporaryFilesBehind() throws IOException
    {
        final RendezvousStore store = handle();
        for (int i = 0; i < 20; i++)
        {
            store.set("k" + (i % 3), bytes("v" + i));
            store.add("c", 1);
        }
        try (Stream<Path> files = Files.list(directory))
        {
            assertTrue(files.noneMatch(p -> p.getFileName().toString().startsWith(".tmp-")));
        }
        assertArrayEquals(bytes("v19"), store.get("k1", LONG));
    }

    @Test
    void shouldRejectAPathThatIsAFile() throws IOException
    {
        final Path file = Files.createFile(directory.resolve("plain-file"));
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> new FileStore(file));
        assertTrue(ex.getMessage().contains("plain-file"), ex.getMessage());
    }
}

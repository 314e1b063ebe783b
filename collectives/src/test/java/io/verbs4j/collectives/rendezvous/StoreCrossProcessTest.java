// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.rendezvous;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** FileStore and TcpStore between this JVM and a real second process. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StoreCrossProcessTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    @Test
    void shouldRendezvousThroughAFileStoreWithAnotherProcess() throws Exception
    {
        final Path directory = TestFiles.createTempDirectory("filestore-xproc");
        try (FileStore store = new FileStore(directory))
        {
            exchangeWithChild(store, "file", directory.toString());
        }
        finally
        {
            TestFiles.deleteRecursively(directory);
        }
    }

    @Test
    void shouldRendezvousThroughATcpStoreWithAnotherProcess() throws Exception
    {
        try (TcpStore store = TcpStore.host(new InetSocketAddress("127.0.0.1", 0), TIMEOUT))
        {
            exchangeWithChild(store, "tcp", Integer.toString(store.serverPort()));
        }
    }

    private static void exchangeWithChild(final RendezvousStore store, final String kind, final String where)
        throws IOException, InterruptedException
    {
        final Process child = startChild(kind, where);
        try
        {
            store.add("arrivals", 1);
            store.set("parent", "hello".getBytes(StandardCharsets.UTF_8));
            assertEquals("child saw hello", new String(store.get("child", TIMEOUT), StandardCharsets.UTF_8));
            assertTrue(child.waitFor(20, TimeUnit.SECONDS), "child did not exit");
            assertEquals(0, child.exitValue(), "child exit code");
            assertEquals(2, store.add("arrivals", 0), "both processes incremented the counter");
        }
        finally
        {
            child.destroyForcibly();
        }
    }

    private static Process startChild(final String kind, final String where) throws IOException
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        final String flags = System.getProperty("verbs4j.test.jvmFlags", "");
        if (!flags.isBlank())
        {
            command.addAll(Arrays.asList(flags.trim().split("\\s+")));
        }
        command.addAll(List.of("-XX:TieredStopAtLevel=1", "-cp",
            System.getProperty("java.class.path"), StorePeerMain.class.getName(), kind, where));
        return new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.INHERIT)
            .start();
    }

}

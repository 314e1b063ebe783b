// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.rendezvous;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.verbs4j.launch.ChildJvm;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
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
        try (ChildJvm child = ChildJvm.builder("store peer " + kind, StorePeerMain.class)
            .jvmArgs(List.of("-XX:TieredStopAtLevel=1"))
            .args(List.of(kind, where))
            .mergeStderr()
            .echo(System.out, "")
            .start())
        {
            store.add("arrivals", 1);
            store.set("parent", "hello".getBytes(StandardCharsets.UTF_8));
            assertEquals("child saw hello", new String(store.get("child", TIMEOUT), StandardCharsets.UTF_8));
            assertTrue(child.waitFor(TimeUnit.SECONDS.toMillis(20)), "child did not exit");
            assertEquals(0, child.exitValue(), "child exit code");
            assertEquals(2, store.add("arrivals", 0), "both processes incremented the counter");
        }
    }
}

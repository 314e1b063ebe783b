// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.rendezvous;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Runs in a child JVM as "rank 1" of {@link StoreCrossProcessTest}: reads the parent's value, answers with a
 * derived one and bumps a shared counter. Exits 0 on success, non-zero with a message otherwise.
 */
public final class StorePeerMain
{
    private StorePeerMain()
    {
    }

    /**
     * Entry point.
     *
     * @param args {@code file <directory>} or {@code tcp <port>}.
     */
    public static void main(final String[] args)
    {
        final Duration timeout = Duration.ofSeconds(20);
        try (RendezvousStore store = "file".equals(args[0]) ? new FileStore(Path.of(args[1])) :
            TcpStore.connect(new InetSocketAddress("127.0.0.1", Integer.parseInt(args[1])), timeout))
        {
            final String parent = new String(store.get("parent", timeout), StandardCharsets.UTF_8);
            store.set("child", ("child saw " + parent).getBytes(StandardCharsets.UTF_8));
            store.add("arrivals", 1);
        }
        System.exit(0);
    }
}

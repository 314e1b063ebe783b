// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.launch;

import io.verbs4j.collectives.rendezvous.EnvRendezvous;
import io.verbs4j.collectives.rendezvous.FileStore;
import io.verbs4j.collectives.rendezvous.RendezvousStore;
import io.verbs4j.collectives.rendezvous.StoreExchange;
import io.verbs4j.collectives.rendezvous.TcpStore;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A tiny rank for {@link LoopbackClusterTest}: all-gathers its rank through the FileStore in
 * {@code VERBS4J_RENDEZVOUS_DIR} and through the TcpStore at {@code MASTER_ADDR:MASTER_PORT}, checks both results
 * and prints them. Exits 0 on success, 1 on any mismatch or error.
 */
public final class ExchangeRankMain
{
    private ExchangeRankMain()
    {
    }

    /**
     * Entry point.
     *
     * @param args ignored.
     */
    public static void main(final String[] args)
    {
        final Duration timeout = Duration.ofSeconds(20);
        final EnvRendezvous env = EnvRendezvous.from(System.getenv());
        final int rank = env.rank();
        final int size = env.worldSize();
        final String dir = System.getenv(LoopbackCluster.RENDEZVOUS_DIR_ENV);
        try (RendezvousStore file = new FileStore(Path.of(dir));
            TcpStore tcp = env.connect(timeout))
        {
            final List<String> viaFile = gather(file, rank, size, timeout);
            final List<String> viaTcp = gather(tcp, rank, size, timeout);
            final List<String> expected = new ArrayList<>();
            for (int r = 0; r < size; r++)
            {
                expected.add("rank-" + r);
            }
            System.out.println("dir " + dir);
            System.out.println("file " + viaFile + " tcp " + viaTcp);
            // Rank 0 hosts the TcpStore server, so it leaves only after every rank's last request was answered.
            tcp.set("finished/" + rank, new byte[0]);
            if (0 == rank)
            {
                final List<String> finished = new ArrayList<>();
                for (int r = 0; r < size; r++)
                {
                    finished.add("finished/" + r);
                }
                tcp.waitFor(finished, timeout);
            }
            System.exit(expected.equals(viaFile) && expected.equals(viaTcp) ? 0 : 1);
        }
        catch (final RuntimeException ex)
        {
            ex.printStackTrace(System.out);
            System.exit(1);
        }
    }

    private static List<String> gather(
        final RendezvousStore store, final int rank, final int size, final Duration timeout)
    {
        final byte[][] all = new StoreExchange(store)
            .allGather(rank, size, ("rank-" + rank).getBytes(StandardCharsets.UTF_8), timeout);
        final List<String> result = new ArrayList<>();
        for (final byte[] bytes : all)
        {
            result.add(new String(bytes, StandardCharsets.UTF_8));
        }
        return result;
    }
}

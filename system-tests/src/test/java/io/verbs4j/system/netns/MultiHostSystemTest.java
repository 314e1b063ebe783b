// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.system.netns;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import io.verbs4j.bench.Main;
import io.verbs4j.system.RankLoop;
import io.verbs4j.system.support.SystemTests;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Several ranks on each of three test hosts made of network namespaces ({@link NetnsCluster}), bootstrapped the
 * torchrun way with {@code MASTER_ADDR} = host 1: links within a host must be shm, links across hosts tcp (the host
 * id includes the network namespace), AllReduce must be bit-exact on every rank under a rate limit (tc tbf) and
 * random loss (nftables), a host cut off mid-run must make every rank fail within the bound, and the perftest and
 * nccl-tests-style tools must work across hosts. Skipped, with the reason, where namespaces cannot be made (not
 * root, no iproute2 or nftables). Figures go to {@code target/reliability/multi-host.txt}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MultiHostSystemTest
{
    private static final String REPORT = "multi-host.txt";
    private static final int HOSTS = 3;
    private static final int RANKS_PER_HOST = 2;
    private static final int RANKS = HOSTS * RANKS_PER_HOST;
    private static final String MASTER_PORT = "29500";
    /** Generous: six JVMs start and bootstrap on two shared cores. */
    private static final long RUN_TIMEOUT_MS = 240_000;
    /** Peer timeout of the healthy runs: a loaded machine can starve a healthy peer for seconds. */
    private static final long HEALTHY_PEER_TIMEOUT_MS = 30_000;
    /** Operation timeout of the healthy runs (a 4 MiB AllReduce through 100 Mbit/s with loss takes seconds). */
    private static final long HEALTHY_OP_TIMEOUT_MS = 120_000;
    /** Count of the partition runs' AllReduce loops. */
    private static final int PARTITION_COUNT = 16 * 1024;

    private int clusters;
    private double lastRunSeconds;

    @BeforeAll
    void requireNamespaces()
    {
        final String reason = NetnsCluster.unavailableReason();
        if (null != reason)
        {
            System.out.println("[multi-host] skipped: " + reason);
        }
        assumeTrue(null == reason, () -> "multi-host tests skipped: " + reason);
        NetnsCluster.sweepLeftovers();
        SystemTests.report(REPORT, SystemTests.runHeader());
    }

    @AfterAll
    void removeLeftovers()
    {
        // every test closes its cluster; this deletes what an interrupted test may have left
        final String mine = NetnsCluster.PREFIX + ProcessHandle.current().pid() + "-";
        for (final String ns : NetnsCluster.namespaces())
        {
            if (ns.startsWith(mine))
            {
                try
                {
                    new ProcessBuilder("ip", "netns", "del", ns).inheritIO().start().waitFor(20, TimeUnit.SECONDS);
                }
                catch (final Exception ex)
                {
                    System.err.println("cannot delete namespace " + ns + ": " + ex);
                }
            }
        }
    }

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void sixRanksOnThreeHostsUseShmWithinAndTcpAcrossAndAgreeBitForBit()
    {
        try (NetnsCluster cluster = new NetnsCluster(label("ar"), HOSTS))
        {
            final List<Row> rows = runCheck(cluster, "1,1024,65536,1048576", 4);
            report("plain", rows, cluster, 0);
        }
    }

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void rateLimitedLossyHostsStayBitExact()
    {
        try (NetnsCluster cluster = new NetnsCluster(label("tbfloss"), HOSTS))
        {
            for (int h = 1; h <= HOSTS; h++)
            {
                cluster.rateLimit(h, "100mbit");
                cluster.loss(h, 1);
            }
            final List<Row> rows = runCheck(cluster, "1024,65536,1048576", 3);
            final long dropped = dropped(cluster);
            assertTrue(dropped > 0, "the loss rules dropped no packet");
            report("tbf 100mbit + loss 1%", rows, cluster, dropped);
        }
    }

    @Test
    @Tag("slow")
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void rateLimitedHostsStayBitExact()
    {
        try (NetnsCluster cluster = new NetnsCluster(label("tbf"), HOSTS))
        {
            for (int h = 1; h <= HOSTS; h++)
            {
                cluster.rateLimit(h, "100mbit");
            }
            final List<Row> rows = runCheck(cluster, "1024,262144,1048576,4194304", 5);
            report("tbf 100mbit", rows, cluster, 0);
        }
    }

    @Test
    @Tag("slow")
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void lossyHostsStayBitExact()
    {
        try (NetnsCluster cluster = new NetnsCluster(label("loss"), HOSTS))
        {
            for (int h = 1; h <= HOSTS; h++)
            {
                cluster.loss(h, 2);
            }
            final List<Row> rows = runCheck(cluster, "1,1024,65536,1048576,4194304", 5);
            final long dropped = dropped(cluster);
            assertTrue(dropped > 0, "the loss rules dropped no packet");
            report("loss 2%", rows, cluster, dropped);
        }
    }

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void aHostCutOffMidRunMakesEveryRankFailWithinTheBound()
    {
        partition(0);
    }

    @Test
    @Tag("slow")
    @Timeout(value = 30, unit = TimeUnit.MINUTES)
    void repeatedPartitions()
    {
        final int runs = SystemTests.intProperty("verbs4j.faults.netnsPartitions", 6);
        for (int i = 1; i <= runs; i++)
        {
            partition(i);
        }
    }

    // ------------------------------------------------------------------------------------------------ the runs

    private record Row(int count, int iters, double avgUs, double busbw, String crc)
    {
        static Row parse(final String line)
        {
            final Map<String, String> kv = new HashMap<>();
            for (final String word : line.split(" "))
            {
                final int eq = word.indexOf('=');
                if (eq > 0)
                {
                    kv.put(word.substring(0, eq), word.substring(eq + 1));
                }
            }
            return new Row(Integer.parseInt(kv.get("count")), Integer.parseInt(kv.get("iters")),
                Double.parseDouble(kv.get("avgUs")), Double.parseDouble(kv.get("busbw")), kv.get("crc"));
        }
    }

    private List<NsProcess> startRanks(final NetnsCluster cluster, final String label, final List<String> args)
    {
        final List<NsProcess> ranks = new ArrayList<>();
        for (int r = 0; r < RANKS; r++)
        {
            ranks.add(cluster.exec(label + "-r" + r, hostOf(r), env(r), NetnsRankMain.class, args));
        }
        return ranks;
    }

    private static int hostOf(final int rank)
    {
        return rank / RANKS_PER_HOST + 1;
    }

    private static Map<String, String> env(final int rank)
    {
        return Map.of("MASTER_ADDR", NetnsCluster.address(1), "MASTER_PORT", MASTER_PORT,
            "RANK", Integer.toString(rank), "WORLD_SIZE", Integer.toString(RANKS));
    }

    /**
     * Runs the checked AllReduce sizes on six ranks; asserts exit 0, the links and the same CRC on every rank.
     *
     * @return rank 0's rows.
     */
    private List<Row> runCheck(final NetnsCluster cluster, final String counts, final int iterations)
    {
        final long start = System.nanoTime();
        final List<NsProcess> ranks = startRanks(cluster, "check", List.of("check", counts,
            Integer.toString(iterations), Long.toString(HEALTHY_PEER_TIMEOUT_MS),
            Long.toString(HEALTHY_OP_TIMEOUT_MS)));
        final List<List<Row>> rowsPerRank = new ArrayList<>();
        for (int r = 0; r < RANKS; r++)
        {
            final NsProcess rank = ranks.get(r);
            final Integer exit = rank.awaitExit(RUN_TIMEOUT_MS - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() -
                start));
            if (null == exit)
            {
                fail("rank " + r + " did not finish within " + RUN_TIMEOUT_MS + " ms\n" + rank.text());
            }
            assertEquals(0, exit, rank.text());
            assertLinks(r, rank);
            assertNotNull(rank.awaitLine("DONE"::equals, 0), rank.text());
            final List<Row> rows = new ArrayList<>();
            for (final String line : rank.lines())
            {
                if (line.startsWith("ROW "))
                {
                    rows.add(Row.parse(line));
                }
            }
            assertEquals(counts.split(",").length, rows.size(), rank.text());
            rowsPerRank.add(rows);
        }
        for (int r = 1; r < RANKS; r++)
        {
            for (int i = 0; i < rowsPerRank.get(0).size(); i++)
            {
                assertEquals(rowsPerRank.get(0).get(i).crc(), rowsPerRank.get(r).get(i).crc(),
                    "CRC32C of the result of count " + rowsPerRank.get(0).get(i).count() + ": rank 0 vs rank " + r);
            }
        }
        lastRunSeconds = (System.nanoTime() - start) / 1e9;
        return rowsPerRank.get(0);
    }

    private static void assertLinks(final int rank, final NsProcess process)
    {
        final String line = process.awaitLine(l -> l.startsWith("LINKS "), 0);
        assertNotNull(line, process.text());
        final StringBuilder want = new StringBuilder("LINKS rank=" + rank);
        for (int q = 0; q < RANKS; q++)
        {
            if (q != rank)
            {
                want.append(' ').append(q).append(':').append(hostOf(q) == hostOf(rank) ? "shm" : "tcp");
            }
        }
        assertEquals(want.toString(), line, "shm within a host, tcp across hosts");
    }

    private static long dropped(final NetnsCluster cluster)
    {
        long dropped = 0;
        for (int h = 1; h <= cluster.hosts(); h++)
        {
            dropped += cluster.droppedPackets(h);
        }
        return dropped;
    }

    private void report(final String condition, final List<Row> rows, final NetnsCluster cluster,
        final long dropped)
    {
        final List<String> lines = new ArrayList<>();
        lines.add(condition + ": " + RANKS + " ranks on " + HOSTS + " hosts, INT32 SUM in place, every element " +
            "checked on every rank, same CRC32C everywhere" + (dropped > 0 ? ", " + dropped + " packets dropped" : "") +
            String.format(Locale.ROOT, ", %.1f s from start to exit of all ranks", lastRunSeconds));
        for (final Row row : rows)
        {
            lines.add(String.format(Locale.ROOT, "  %9d B  %d calls  avg %10.1f us  busbw %.4f GB/s (rank 0)",
                4L * row.count(), row.iters(), row.avgUs(), row.busbw()));
        }
        SystemTests.report(REPORT, lines);
    }

    /**
     * Six ranks loop over AllReduce, a host is cut off, every rank must print FAILED within the bound and exit. Run 0
     * (the default suite) takes host 3's bridge port down; the slow runs rotate over the hosts (host 1 holds rank 0
     * and the rendezvous store) and alternate between the bridge port (the peers' view: silence) and the host's own
     * eth0 (the host's sends fail at once too).
     */
    private void partition(final int run)
    {
        final int victim = 0 == run ? HOSTS : (run - 1) % HOSTS + 1;
        final boolean ownLink = 0 != run && 0 == run % 2;
        final String how = ownLink ? "eth0 of host " + victim + " down" : "bridge port of host " + victim + " down";
        try (NetnsCluster cluster = new NetnsCluster(label("cut"), HOSTS))
        {
            final List<NsProcess> ranks = startRanks(cluster, "loop", List.of("loop",
                Integer.toString(PARTITION_COUNT), "0", Long.toString(SystemTests.PEER_TIMEOUT_MS),
                Long.toString(RankLoop.OP_TIMEOUT_MS)));
            for (final NsProcess rank : ranks)
            {
                if (null == rank.awaitLine(l -> "LOOPING".equals(l) || l.startsWith("ERROR"), RUN_TIMEOUT_MS) ||
                    null == rank.awaitLine("LOOPING"::equals, 0))
                {
                    fail("rank did not start looping\n" + rank.text());
                }
            }
            sleep(500);
            final long cutAtMs = System.currentTimeMillis();
            if (ownLink)
            {
                cluster.hostLinkDown(victim);
            }
            else
            {
                cluster.linkDown(victim);
            }
            final Map<Integer, String> outcomes = new TreeMap<>();
            long slowest = 0;
            for (int r = 0; r < RANKS; r++)
            {
                final NsProcess rank = ranks.get(r);
                final String failed = rank.awaitLine(l -> l.startsWith("FAILED") || l.startsWith("WRONG"),
                    RankLoop.FAILURE_BOUND_MS + 30_000 - (System.currentTimeMillis() - cutAtMs));
                if (null == failed)
                {
                    fail("rank " + r + " reported nothing within " + (RankLoop.FAILURE_BOUND_MS + 30_000) +
                        " ms of the cut (a hang)\n" + rank.text());
                }
                assertTrue(failed.startsWith("FAILED"), rank.text());
                final String[] w = failed.split(" ", 5);
                final long ms = Long.parseLong(w[2]) - cutAtMs;
                slowest = Math.max(slowest, ms);
                outcomes.put(r, w[1] + "@" + ms + "ms");
                final Integer exit = rank.awaitExit(30_000);
                assertNotNull(exit, "rank " + r + " did not exit within 30 s of failing\n" + rank.text());
                assertEquals(0, exit, rank.text());
            }
            SystemTests.report(REPORT, "partition #" + run + ": " + how + " after every rank looped " +
                "(INT32 AllReduce of " + PARTITION_COUNT + "), peer timeout " + SystemTests.PEER_TIMEOUT_MS +
                " ms, op timeout " + RankLoop.OP_TIMEOUT_MS + " ms; rank: reason@time after the cut " + outcomes +
                "; slowest " + slowest + " ms (bound " + RankLoop.FAILURE_BOUND_MS + " ms)");
            for (final Map.Entry<Integer, String> entry : outcomes.entrySet())
            {
                final long ms = Long.parseLong(entry.getValue().replaceAll(".*@(-?\\d+)ms", "$1"));
                assertTrue(ms <= RankLoop.FAILURE_BOUND_MS, "rank " + entry.getKey() + " failed " + ms +
                    " ms after the cut, bound " + RankLoop.FAILURE_BOUND_MS + " ms: " + outcomes);
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ the tools

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void perftestAndCollToolsRunAcrossHosts()
    {
        try (NetnsCluster cluster = new NetnsCluster(label("tools"), HOSTS))
        {
            perftest(cluster);
            coll(cluster);
        }
    }

    private static void perftest(final NetnsCluster cluster)
    {
        final NsProcess server = cluster.exec("perftest-server", 1, Map.of(), Main.class,
            List.of("perftest", "--server", "--bind", NetnsCluster.address(1), "--exit-with-parent", "--timeout",
                "120"));
        assertNotNull(server.awaitLine(l -> l.startsWith("VERBS4J-READY"), RUN_TIMEOUT_MS), server.text());
        final NsProcess client = cluster.exec("perftest-client", 2, Map.of(), Main.class,
            List.of("perftest", "--client", NetnsCluster.address(1), "-T", "tcp-write,socket", "--test", "lat,bw",
                "-s", "8,65536", "-n", "300", "-w", "100", "--warmup-exact", "--timeout", "120"));
        final Integer exit = client.awaitExit(RUN_TIMEOUT_MS);
        assertNotNull(exit, "perftest client did not finish\n" + client.text());
        assertEquals(0, exit, client.text());
        SystemTests.report(REPORT, "perftest host 2 -> host 1:\n  " + String.join("\n  ", client.lines()));
        // four tables (tcp-write and socket, lat and bw), a row for each of the two sizes, no failed size
        int rows = 0;
        for (final String line : client.lines())
        {
            assertTrue(!line.contains("failed"), "perftest: " + line);
            rows += line.matches("\\s*(8|65536)\\s+300\\s+\\d.*") ? 1 : 0;
        }
        assertEquals(8, rows, client.text());
        assertNotNull(server.awaitExit(60_000), server.text());
    }

    private static void coll(final NetnsCluster cluster)
    {
        final List<NsProcess> ranks = new ArrayList<>();
        for (int r = 0; r < RANKS; r++)
        {
            ranks.add(cluster.exec("coll-r" + r, hostOf(r), env(r), Main.class, List.of("coll", "allreduce", "--env",
                "-b", "1K", "-e", "1M", "-f", "32", "-w", "3", "--warmup-exact", "-n", "10",
                "--timeout", "120")));
        }
        for (int r = 0; r < RANKS; r++)
        {
            final Integer exit = ranks.get(r).awaitExit(RUN_TIMEOUT_MS);
            assertNotNull(exit, "coll rank " + r + " did not finish\n" + ranks.get(r).text());
            assertEquals(0, exit, ranks.get(r).text());
        }
        final List<String> out = ranks.get(0).lines();
        SystemTests.report(REPORT, "coll allreduce --env, 6 ranks on 3 hosts:\n  " + String.join("\n  ", out));
        assertTrue(out.contains("# Rank 0 links (peer:provider): 1:shm 2:tcp 3:tcp 4:tcp 5:tcp"),
            ranks.get(0).text());
        int rows = 0;
        for (final String line : out)
        {
            if (line.startsWith("#") || line.startsWith("!") || line.isBlank())
            {
                continue;
            }
            final String[] c = line.trim().split("\\s+");
            assertEquals(13, c.length, "row: " + line);
            assertEquals("0", c[8], "out-of-place #wrong: " + line);
            assertEquals("0", c[12], "in-place #wrong: " + line);
            assertTrue(Double.parseDouble(c[5]) > 0 && Double.parseDouble(c[9]) > 0, "time: " + line);
            assertTrue(Double.parseDouble(c[7]) >= 0 && Double.parseDouble(c[11]) >= 0, "busbw: " + line);
            rows++;
        }
        assertEquals(3, rows, "rows for 1K, 32K, 1M\n" + ranks.get(0).text());
        assertTrue(out.contains("# Out of bounds values : 0 OK"), ranks.get(0).text());
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private String label(final String what)
    {
        return what + (++clusters);
    }

    private static void sleep(final long ms)
    {
        try
        {
            Thread.sleep(ms);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}

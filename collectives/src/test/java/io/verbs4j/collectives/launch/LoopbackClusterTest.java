// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.launch;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.verbs4j.launch.JvmFlags;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Launches real child JVMs; each test starts two or three. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LoopbackClusterTest
{
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
    private final PrintStream output = new PrintStream(captured, true, StandardCharsets.UTF_8);

    @Test
    void shouldRunRanksThatFindEachOtherThroughFileAndTcpStores()
    {
        final ClusterResult result = new LoopbackCluster(3)
            .timeout(Duration.ofSeconds(45))
            .jvmArgs("-XX:TieredStopAtLevel=1", "-Xmx64m")
            .output(output)
            .run(ExchangeRankMain.class.getName());
        final String text = text();
        assertTrue(result.succeeded(), result + "\n" + text);
        for (int rank = 0; rank < 3; rank++)
        {
            assertTrue(text.contains("[rank " + rank + "] file [rank-0, rank-1, rank-2] tcp [rank-0, rank-1, rank-2]"),
                text);
        }
        final Matcher dir = Pattern.compile("\\[rank 0] dir (\\S+)").matcher(text);
        assertTrue(dir.find(), text);
        assertFalse(Files.exists(Path.of(dir.group(1))), "the rendezvous directory is deleted after the run");
    }

    @Test
    void shouldKillTheOtherRanksWhenOneFails()
    {
        final long startNs = System.nanoTime();
        final ClusterResult result = new LoopbackCluster(2)
            .timeout(Duration.ofSeconds(45))
            .jvmArgs("-XX:TieredStopAtLevel=1", "-Xmx32m")
            .output(output)
            .run(MisbehavingRankMain.class.getName(), "fail");
        assertFalse(result.succeeded());
        assertFalse(result.timedOut());
        assertEquals(MisbehavingRankMain.FAILURE_CODE, result.exitCode(1), result + "\n" + text());
        assertFalse(result.wasKilled(1));
        assertTrue(result.wasKilled(0), result.toString());
        assertTrue(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startNs) < 30, "did not wait for the sleeper");
        assertTrue(text().contains("[rank 1] failing on purpose"), text());
    }

    @Test
    void shouldKillEveryProcessTreeOnTimeout()
    {
        // Long enough for two JVMs starting at once on a loaded machine to report their grandchildren.
        final ClusterResult result = new LoopbackCluster(2)
            .timeout(Duration.ofSeconds(10))
            .jvmArgs("-XX:TieredStopAtLevel=1", "-Xmx32m")
            .output(output)
            .run(MisbehavingRankMain.class.getName(), "hang");
        final String text = text();
        assertTrue(result.timedOut(), result + "\n" + text);
        assertTrue(result.wasKilled(0) && result.wasKilled(1), result.toString());
        final Matcher pids = Pattern.compile("grandchild (\\d+)").matcher(text);
        int found = 0;
        while (pids.find())
        {
            found++;
            final long pid = Long.parseLong(pids.group(1));
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false),
                "grandchild " + pid + " must be killed with its rank");
        }
        assertEquals(2, found, "each rank reported its grandchild before the timeout:\n" + text);
        assertTrue(text.contains("[cluster] timeout"), text);
    }

    @Test
    void shouldUseTheSameJvmFlagsAsTheBuild()
    {
        final String fromPom = System.getProperty("verbs4j.test.jvmFlags");
        assertTrue(null != fromPom && !fromPom.isBlank(), "Surefire passes verbs4j.test.jvmFlags");
        assertEquals(JvmFlags.normalise(fromPom), JvmFlags.LIST,
            "JvmFlags.LIST (the flags LoopbackCluster's ranks get) must match the parent pom's verbs4j.jvmFlags");
    }

    @Test
    void shouldRejectBadConfiguration()
    {
        assertThrows(IllegalArgumentException.class, () -> new LoopbackCluster(0));
        assertThrows(IllegalArgumentException.class, () -> new LoopbackCluster(1).timeout(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> new LoopbackCluster(1).run(" "));
    }

    private String text()
    {
        return captured.toString(StandardCharsets.UTF_8);
    }
}

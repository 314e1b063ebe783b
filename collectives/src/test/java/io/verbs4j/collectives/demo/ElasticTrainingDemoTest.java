// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.verbs4j.collectives.launch.ClusterResult;
import io.verbs4j.collectives.launch.LoopbackCluster;
import org.junit.jupiter.api.Test;

/** The elastic demo as a user runs it: one rank of three crashes mid-training, the two others shrink and finish. */
class ElasticTrainingDemoTest
{
    private static final Pattern SURVIVOR = Pattern.compile(
        "rank (\\d) \\(now (\\d) of 2\\): error (\\d+) ms after the crash, first AllReduce among the survivors " +
        "(\\d+) ms after the error; weights agree bit for bit: yes");

    @Test
    void theSurvivorsOfACrashFinishTrainingWithTheSameWeights()
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream output = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        final ClusterResult result = new LoopbackCluster(3).timeout(Duration.ofSeconds(120)).output(output)
            .jvmArgs("-Xmx256m").run(ElasticTrainingDemo.class.getName(), "3", "", "1", "40");
        final String text = bytes.toString(StandardCharsets.UTF_8);
        System.out.print(text);
        assertTrue(result.succeeded(), result + "\n" + text);
        assertTrue(text.contains("rank 1: crashing at step 40"), text);
        assertTrue(text.contains("step 200  2 ranks  mean log-loss"), text);
        final Matcher survivors = SURVIVOR.matcher(text);
        int count = 0;
        while (survivors.find())
        {
            count++;
            final int worldRank = Integer.parseInt(survivors.group(1));
            // renumbered in rank order: 0 stays 0, 2 becomes 1
            assertEquals(0 == worldRank ? 0 : 1, Integer.parseInt(survivors.group(2)), survivors.group());
        }
        assertEquals(2, count, text);
    }
}

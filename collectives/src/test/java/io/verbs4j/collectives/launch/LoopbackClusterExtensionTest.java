// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.launch;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@WithLoopbackCluster(size = 4, timeoutSeconds = 20)
class LoopbackClusterExtensionTest
{
    @Test
    void shouldInjectAThreadClusterConfiguredByTheClassAnnotation(final ThreadCluster cluster)
    {
        assertEquals(4, cluster.size());
        final AtomicInteger ran = new AtomicInteger();
        cluster.run((rank, size, store) -> ran.incrementAndGet());
        assertEquals(4, ran.get());
    }

    @Test
    @WithLoopbackCluster(size = 2, timeoutSeconds = 45)
    void shouldInjectAProcessClusterConfiguredByTheMethodAnnotation(final LoopbackCluster cluster)
    {
        assertEquals(2, cluster.size(), "the method annotation wins");
        final ClusterResult result = cluster.jvmArgs("-XX:TieredStopAtLevel=1", "-Xmx64m")
            .run(ExchangeRankMain.class.getName());
        assertTrue(result.succeeded(), result.toString());
    }
}

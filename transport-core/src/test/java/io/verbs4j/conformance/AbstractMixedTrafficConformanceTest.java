// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.conformance;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.verbs4j.Capabilities;
import io.verbs4j.config.CoreConfiguration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Randomized, seeded two-way traffic: both sides (this JVM, role 0, and the {@link Peer}, role 1, normally in a child
 * JVM) post a random mix of all seven opcodes at once, up to {@link MixedTrafficSide#SEND_DEPTH} requests in flight
 * per queue pair, small multi-SGE READs among WRITEs, SENDs and atomics, signaled and unsignaled, inline and not
 * ({@link MixedSchedule}). Every completion's status, opcode, length and order, every byte read, written or received
 * and every atomic result is checked ({@link MixedTrafficSide}). Traffic runs in rounds; after each round both sides
 * check what the other did to their memory.
 * <p>
 * The one-operation-kind-at-a-time suites cannot see bugs where one direction's answers and the other direction's
 * requests meet on one connection (an ACK overtaking a READ response, a half-written frame interleaved with another).
 * <p>
 * Each run prints one line with its seed and operation counts. A failure names the seed; rerun it alone with
 * {@code -Dverbs4j.mixed.seed=N} (and {@code -Dverbs4j.mixed.rounds}, {@code -Dverbs4j.mixed.ops}). The default
 * suite runs {@link #DEFAULT_ROUNDS} rounds of {@link #DEFAULT_OPERATIONS} operations per side for three fixed seeds;
 * the {@code slow} tag ({@code -Pslow}) runs {@code verbs4j.mixed.slowSeeds} seeds (default 16, from 1000) of
 * {@link #SLOW_ROUNDS} rounds.
 * <p>
 * A provider module subclasses it once per mode it offers, naming the provider and the mode's device properties
 * ({@link #modeProperties()}).
 */
public abstract class AbstractMixedTrafficConformanceTest extends AbstractConformanceTest
{
    /** Rounds per seed in the default suite. */
    public static final int DEFAULT_ROUNDS = 2;
    /** Operations per side and round. */
    public static final int DEFAULT_OPERATIONS = 400;
    /** Rounds per seed in the slow run. */
    public static final int SLOW_ROUNDS = 50;
    /** First seed of the slow run. */
    public static final long FIRST_SLOW_SEED = 1000;
    /**
     * Peer timeout of both sides' devices. This suite is about order and data, not failure detection (other suites
     * cover that with the default): with the default 500 ms, a shared machine under heavy load (load average above
     * 20 on 2 cores while other builds ran) made heartbeats late and lost connections with RETRY_EXC_ERR.
     */
    public static final long PEER_TIMEOUT_MS = 10_000;
    private static final long PEER_ROUND_TIMEOUT_MS = MixedTrafficSide.STALL_MS + 30_000;

    /**
     * @return the mode's properties, plus the peer timeout of this suite ({@link #PEER_TIMEOUT_MS}).
     */
    @Override
    protected final Map<String, String> deviceProperties()
    {
        final Map<String, String> properties = new HashMap<>(modeProperties());
        properties.put(CoreConfiguration.PEER_TIMEOUT_PROP_NAME, Long.toString(PEER_TIMEOUT_MS));
        return properties;
    }

    /** @return device properties (both sides) that select the provider's mode under test. */
    protected Map<String, String> modeProperties()
    {
        return Map.of();
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void shouldCarryMixedTwoWayTraffic(final long seed)
    {
        run(seed, DEFAULT_ROUNDS, DEFAULT_OPERATIONS);
    }

    @Test
    @EnabledIfSystemProperty(named = "verbs4j.mixed.seed", matches = "-?[0-9]+")
    void shouldCarryMixedTwoWayTrafficForTheSeedAskedFor()
    {
        run(Long.getLong("verbs4j.mixed.seed"), Integer.getInteger("verbs4j.mixed.rounds", DEFAULT_ROUNDS),
            Integer.getInteger("verbs4j.mixed.ops", DEFAULT_OPERATIONS));
    }

    @Test
    @Tag("slow")
    @Timeout(value = 60, unit = TimeUnit.MINUTES)
    void shouldCarryLongMixedTwoWayTraffic()
    {
        final int seeds = Integer.getInteger("verbs4j.mixed.slowSeeds", 16);
        for (int s = 0; s < seeds; s++)
        {
            run(FIRST_SLOW_SEED + s, SLOW_ROUNDS, DEFAULT_OPERATIONS);
        }
    }

    /**
     * Connects a fresh pair of mixed-traffic sides and runs {@code rounds} rounds of {@code operations} operations
     * per side.
     *
     * @param seed       the seed.
     * @param rounds     rounds.
     * @param operations operations per side and round.
     */
    protected void run(final long seed, final int rounds, final int operations)
    {
        final Capabilities caps = device.capabilities();
        final MixedSchedule.Limits limits = new MixedSchedule.Limits(operations, caps.maxSge(),
            Math.min(64, caps.maxInlineLength()), caps.has(Capabilities.ATOMIC), caps.has(Capabilities.WRITE_IMM));
        final String mode = getClass().getSimpleName();
        final long startNs = System.nanoTime();
        final MixedTrafficSide side = new MixedTrafficSide(device, pd, limits, seed, 0, rounds);
        long[] peerCounts = null;
        try
        {
            final String peerInfo = peer.mixedAccept(limits, seed, rounds);
            device.connectionManager().connect(side.queuePair(), endpoint, new byte[0], Duration.ofSeconds(10));
            peer.awaitAccepted(WAIT_MS);
            side.remote(peerInfo);
            peer.mixedRemote(side.localInfo());
            for (int r = 0; r < rounds; r++)
            {
                peer.mixedStart(r);
                String mine = side.runRound(r);
                // When this side failed, the peer is probably stuck too: wait only long enough for its own account.
                final long peerTimeoutMs = null == mine ? PEER_ROUND_TIMEOUT_MS : 3_000;
                final CompletableFuture<String> peerResult =
                    CompletableFuture.supplyAsync(() -> peer.mixedAwait(peerTimeoutMs));
                while (!peerResult.isDone())
                {
                    // The peer's round may need this side's progress (polling providers): keep polling meanwhile.
                    if (null == mine)
                    {
                        mine = side.idlePoll();
                    }
                    LockSupport.parkNanos(50_000);
                }
                final String theirs = peerResult.join();
                if (null == mine && null == theirs)
                {
                    mine = side.verifyIncoming(r);
                }
                if (null != mine || null != theirs)
                {
                    final String what = null == mine ? theirs : null == theirs ? mine : mine + " | " + theirs;
                    System.out.println("MIXED-TRAFFIC " + mode + " seed " + seed + " FAILED in round " + r + ": " +
                        what);
                    fail("seed " + seed + " (rerun with -Dverbs4j.mixed.seed=" + seed + "), round " + r + " of " +
                        operations + " operations per side: " + what);
                }
            }
        }
        finally
        {
            side.close();
            try
            {
                peerCounts = peer.mixedClose();
            }
            catch (final RuntimeException ex)
            {
                // Already failing (the peer's side never came up): keep the first failure.
                peerCounts = null;
            }
        }
        final long expected = (long)rounds * operations;
        System.out.println("MIXED-TRAFFIC " + mode + " seed " + seed + ": " + rounds + " rounds x " + operations +
            " operations per side, completed " + side.operations() + " + " + (null == peerCounts ? "?" :
            peerCounts[0]) + ", payload bytes checked " + side.bytesChecked() + " + " + (null == peerCounts ? "?" :
            peerCounts[1]) + ", " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs) + " ms");
        assertTrue(side.operations() == expected && null != peerCounts && peerCounts[0] == expected,
            "every operation must have completed on both sides");
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.jmh;

import io.verbs4j.MemoryRegion;
import io.verbs4j.collectives.Algorithm;
import io.verbs4j.collectives.CommBuffer;
import io.verbs4j.collectives.Communicator;
import io.verbs4j.collectives.CommunicatorContext;
import io.verbs4j.collectives.measure.WarmupPolicy;
import io.verbs4j.collectives.measure.WarmupResult;
import io.verbs4j.collectives.rendezvous.InMemoryStore;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import io.verbs4j.launch.JvmFlags;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * AllReduce (float32 sum, in place, registered memory) between 2 ranks as threads of the fork over shm: the
 * benchmark thread is rank 0; rank 1 is a mirror thread that issues the same call in a loop. Run with
 * {@code -prof gc}: the target is {@code gc.alloc.rate.norm} ≈ 0 B/op (it counts every thread of the fork: both ranks,
 * the shm devices' threads).
 * <p>
 * Steady state: before JMH's own warm-up iterations, both ranks run
 * {@link io.verbs4j.collectives.measure.Warmup} with
 * {@link WarmupPolicy#untilStable()} in the trial set-up (rank 0 decides, rank 1 follows, so they leave it after the
 * same call); the fork's output shows how it ended ({@code # verbs4j warm-up: ...}). JMH's time-based warm-up
 * iterations alone do not say whether the per-call time has settled.
 * <p>
 * Stopping the mirror: element 0 of the buffers is 0 during the run; at tear-down rank 0 contributes
 * {@link #STOP} there and makes one more call, so both ranks see the marker in the result after the same number of
 * calls and the mirror leaves its loop without an extra, unmatched call.
 * <pre>
 *   ./verbs4j jmh -prof gc -f 1 CollectivesBenchmark
 *   ./verbs4j jmh -p size=8 -p algorithm=RECURSIVE_DOUBLING CollectivesBenchmark
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {
    JvmFlags.IGNORE_UNRECOGNIZED, JvmFlags.ADD_EXPORTS_MISC, JvmFlags.ENABLE_NATIVE_ACCESS,
    JvmFlags.UNSAFE_MEMORY_ACCESS })
public class CollectivesBenchmark
{
    /** Marker rank 0 contributes to element 0 to stop the mirror. */
    public static final float STOP = 1e30f;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    /** Bytes per AllReduce (float32 elements = size / 4). */
    @Param({ "8", "1048576" })
    public int size;

    /** Algorithm name ({@code AUTO}: cost model). */
    @Param({ "AUTO" })
    public String algorithm;

    /** Waiting threads spin instead of spin-yield-park. */
    @Param({ "false" })
    public boolean busyPoll;

    private InMemoryStore store;
    private Communicator comm;
    private MemoryRegion region;
    private CommBuffer buffer;
    private long count;
    private Thread mirror;
    private final AtomicReference<Throwable> mirrorFailure = new AtomicReference<>();

    /**
     * Connects the two ranks (rank 1 on the mirror thread) and allocates the buffers.
     *
     * @throws Exception if set-up fails.
     */
    @Setup(Level.Trial)
    public void setUp() throws Exception
    {
        count = size / 4;
        store = new InMemoryStore();
        final CompletableFuture<Void> mirrorReady = new CompletableFuture<>();
        mirror = new Thread(() -> mirror(mirrorReady), "verbs4j-jmh-rank-1");
        mirror.setDaemon(true);
        mirror.start();
        comm = Communicator.create(context(0));
        region = comm.allocate(size);
        region.setMemory(0, size, (byte)0);
        buffer = CommBuffer.of(region);
        mirrorReady.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        final WarmupResult warm = warmUp(comm, buffer);
        System.out.println("# verbs4j warm-up: " + WarmupPolicy.untilStable().describe() + ": " + warm.describe());
    }

    /**
     * Runs the steady-state warm-up of this size on one rank (both ranks call it, rank 0 decides). Qualified name:
     * JMH's {@code @Warmup} is imported.
     */
    private WarmupResult warmUp(final Communicator c, final CommBuffer b)
    {
        return io.verbs4j.collectives.measure.Warmup.over(c, WarmupPolicy.untilStable()).run(calls ->
        {
            for (long i = 0; i < calls; i++)
            {
                c.allReduce(b, b, count, DataType.FLOAT32, ReduceOp.SUM);
            }
        });
    }

    private CommunicatorContext context(final int rank)
    {
        final CommunicatorContext context = new CommunicatorContext().rank(rank).size(2).store(store)
            .name("jmh-allreduce").transport("shm").algorithm(Algorithm.parse(algorithm)).opTimeout(TIMEOUT);
        if (busyPoll)
        {
            context.idle(Long.MAX_VALUE, 0, 1, 1);
        }
        return context;
    }

    private void mirror(final CompletableFuture<Void> ready)
    {
        try (Communicator c = Communicator.create(context(1)))
        {
            final MemoryRegion r = c.allocate(size);
            r.setMemory(0, size, (byte)0);
            final CommBuffer b = CommBuffer.of(r);
            ready.complete(null);
            warmUp(c, b);
            do
            {
                c.allReduce(b, b, count, DataType.FLOAT32, ReduceOp.SUM);
            }
            while (Float.intBitsToFloat(r.getInt(0)) < STOP);
        }
        catch (final Throwable t)
        {
            mirrorFailure.set(t);
            ready.completeExceptionally(t);
        }
    }

    /**
     * Stops the mirror (one marked call), closes both communicators.
     *
     * @throws Exception if the mirror failed.
     */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception
    {
        try
        {
            region.putInt(0, Float.floatToRawIntBits(STOP));
            comm.allReduce(buffer, buffer, count, DataType.FLOAT32, ReduceOp.SUM);
            comm.close();
            mirror.join(TIMEOUT.toMillis());
        }
        finally
        {
            store.close();
        }
        if (null != mirrorFailure.get())
        {
            throw new IllegalStateException("rank 1 failed", mirrorFailure.get());
        }
    }

    /**
     * One in-place AllReduce of {@code size} bytes.
     *
     * @return a result element (so the call is not dead code).
     */
    @Benchmark
    public int allReduce()
    {
        comm.allReduce(buffer, buffer, count, DataType.FLOAT32, ReduceOp.SUM);
        return region.getInt(0);
    }
}

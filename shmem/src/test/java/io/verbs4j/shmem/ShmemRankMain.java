// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shmem;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;

import io.verbs4j.collectives.CollectivesConfiguration;
import io.verbs4j.collectives.CommunicatorContext;
import io.verbs4j.collectives.launch.LoopbackCluster;
import io.verbs4j.collectives.rendezvous.FileStore;
import io.verbs4j.spi.HostIdentity;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * One PE of {@link ShmemProcessSystemTest}, a separate JVM started by {@link LoopbackCluster}. Modes:
 * <ul>
 *   <li>{@code litmus <transport>}: message passing (data, then flag) around the ring, in four styles — put, fence,
 *       flag put; put-with-signal; non-blocking put, quiet, flag put; put, fence, atomic add on the flag — with
 *       random delays before and between the steps; the consumer checks every data word once the flag says the
 *       iteration arrived, then acknowledges. Transport {@code mixed} pretends PEs {0,1} and {2,3} are two hosts
 *       (direct peer memory inside a pair, tcp verbs across).</li>
 *   <li>{@code kill <transport>}: the last PE halts without cleanup; the others, blocked in a wait, must fail with
 *       PEER_FAILED within the bound.</li>
 * </ul>
 * A third argument {@code env} bootstraps with {@link SymmetricHeap#fromEnv} (torchrun variables) instead of the
 * file store. Exit code 0 on success; the reason is printed otherwise.
 */
public final class ShmemRankMain
{
    private static final int WORDS = 512;
    private static final int ITERATIONS = 400;
    private static final long KILL_BOUND_MS = 8_000;

    private ShmemRankMain()
    {
    }

    /**
     * @param args mode, transport.
     */
    public static void main(final String[] args)
    {
        final PrintStream out = System.out;
        final String mode = args[0];
        final String transport = args.length > 1 ? args[1] : "";
        final int rank = Integer.parseInt(System.getenv(LoopbackCluster.RANK_ENV));
        final int size = Integer.parseInt(System.getenv(LoopbackCluster.WORLD_SIZE_ENV));
        if ("mixed".equals(transport))
        {
            System.setProperty(HostIdentity.HOST_ID_PROP_NAME, "fake-host-" + (rank / 2));
        }
        int exit = 1;
        try (FileStore store = new FileStore(Path.of(System.getenv(LoopbackCluster.RENDEZVOUS_DIR_ENV))))
        {
            final CommunicatorContext context = new CommunicatorContext().rank(rank).size(size).store(store)
                .transport("mixed".equals(transport) ? "" : transport).name("shmem-" + mode).calibrate(false)
                .peerTimeout(Duration.ofMillis("kill".equals(mode) ? 1_000 : 10_000))
                .opTimeout(Duration.ofSeconds(60));
            final SymmetricHeap heap;
            if (args.length > 2 && "env".equals(args[2]))
            {
                // the torchrun variables LoopbackCluster sets (rank 0 hosts a TcpStore)
                System.setProperty(CollectivesConfiguration.TRANSPORT_PROP_NAME, context.transport());
                heap = SymmetricHeap.fromEnv(System.getenv(), "shmem-env-" + mode);
            }
            else
            {
                heap = SymmetricHeap.create(context);
            }
            boolean ok = false;
            try
            {
                exit = "kill".equals(mode) ? kill(heap, out) : litmus(heap, out, transport);
                ok = true;
            }
            finally
            {
                if (ok)
                {
                    heap.close();
                }
                else
                {
                    heap.abort();
                }
            }
        }
        catch (final Throwable t)
        {
            t.printStackTrace(out);
        }
        out.flush();
        System.exit(exit);
    }

    private static int litmus(final SymmetricHeap heap, final PrintStream out, final String transport)
    {
        final int me = heap.myPe();
        final int n = heap.nPes();
        final int right = (me + 1) % n;
        final int left = (me + n - 1) % n;
        final SymmetricMemory data = heap.allocate(8L * WORDS);
        final SymmetricMemory flags = heap.allocate(64);
        final UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocateDirect(8 * WORDS));
        final SplittableRandom random = new SplittableRandom(me * 7919L + System.nanoTime());
        for (int iter = 1; iter <= ITERATIONS; iter++)
        {
            final int style = iter % 4;
            for (int w = 0; w < WORDS; w++)
            {
                payload.putLong(8 * w, value(me, iter, w));
            }
            delay(random);
            // producer: data, then flag (offset 0) to the right
            switch (style)
            {
                case 0:
                    heap.put(data, 0, payload, 0, 8 * WORDS, right);
                    delay(random);
                    heap.fence();
                    heap.putLong(flags, 0, iter, right);
                    break;
                case 1:
                    heap.putSignal(data, 0, payload, 0, 8 * WORDS, flags, 0, iter, SignalOp.SET, right);
                    break;
                case 2:
                    heap.putNbi(data, 0, payload, 0, 8 * WORDS, right);
                    heap.quiet();
                    delay(random);
                    heap.putLong(flags, 0, iter, right);
                    break;
                default:
                    heap.put(data, 0, payload, 0, 8 * WORDS, right);
                    heap.fence();
                    delay(random);
                    heap.atomicAdd(flags, 0, 1, right);
                    break;
            }
            // consumer: the left's flag, then every word of its data
            heap.waitUntil(flags, 0, Cmp.GE, iter);
            delay(random);
            for (int w = 0; w < WORDS; w++)
            {
                final long got = data.local().getLong(8 * w);
                if (got != value(left, iter, w))
                {
                    out.println("PE " + me + " iteration " + iter + " style " + style + ": word " + w + " is " +
                        got + ", expected " + value(left, iter, w) + " (the flag arrived before the data)");
                    return 1;
                }
            }
            // acknowledge (offset 8 of the left's flags), then wait for ours before overwriting the right's data
            heap.atomicAdd(flags, 8, 1, left);
            heap.waitUntil(flags, 8, Cmp.GE, iter);
        }
        heap.barrierAll();
        out.println("PE " + me + " litmus ok over " + transport + ": " + ITERATIONS + " iterations, right PE " +
            right + " " + (heap.isDirect(right) ? "direct" : "verbs " + heap.transport(right)));
        return 0;
    }

    private static long value(final int pe, final int iter, final int word)
    {
        return ((long)pe << 48) | ((long)iter << 16) | word;
    }

    private static void delay(final SplittableRandom random)
    {
        final int r = random.nextInt(16);
        if (r < 10)
        {
            return;
        }
        if (r < 14)
        {
            final long until = System.nanoTime() + random.nextInt(20_000);
            while (System.nanoTime() < until)
            {
                Thread.onSpinWait();
            }
            return;
        }
        LockSupport.parkNanos(random.nextInt(200_000));
    }

    private static int kill(final SymmetricHeap heap, final PrintStream out)
    {
        final int me = heap.myPe();
        final int last = heap.nPes() - 1;
        // word 0: the flag nobody sets; word 1 + pe: PE pe is past the setup's collectives. The last PE halts only
        // after every other PE said so: a halt during a collective another PE has not finished fails that
        // collective instead of the wait this mode checks
        final SymmetricMemory flag = heap.allocate(8L * (1 + heap.nPes()));
        if (me == last)
        {
            for (int pe = 0; pe < last; pe++)
            {
                heap.waitUntil(flag, 8L * (1 + pe), Cmp.EQ, 1);
            }
            out.println("PE " + me + " halts now");
            out.flush();
            Runtime.getRuntime().halt(0);
        }
        final long start = System.nanoTime();
        try
        {
            // the ready put itself may already see the last PE gone (its completion comes after that PE saw it)
            heap.putLong(flag, 8L * (1 + me), 1, last);
            heap.waitUntil(flag, 0, Cmp.EQ, 1, 60_000_000_000L);
            out.println("PE " + me + ": the wait returned although nobody set the flag");
            return 1;
        }
        catch (final ShmemException ex)
        {
            final long tookMs = (System.nanoTime() - start) / 1_000_000;
            out.println("PE " + me + " wait failed after " + tookMs + " ms: " + ex.reason() + " " + ex.getMessage());
            return ShmemException.Reason.PEER_FAILED == ex.reason() && tookMs < KILL_BOUND_MS ? 0 : 1;
        }
    }
}

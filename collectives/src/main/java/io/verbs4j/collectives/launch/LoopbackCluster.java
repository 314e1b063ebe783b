// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.launch;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.verbs4j.launch.JvmFlags;
import io.verbs4j.launch.JvmLauncher;
import io.verbs4j.launch.ProcessReaper;

/**
 * Starts N ranks as separate JVM processes on this machine, torchrun style, and waits for them.
 *
 * <p>Each child is started by {@link JvmLauncher}: {@code java} from {@code java.home} with {@link JvmFlags#LIST},
 * any extra JVM arguments, this JVM's class path, and {@code mainClass args...}. Its environment adds
 * {@value #RANK_ENV}, {@value #WORLD_SIZE_ENV}, {@value #MASTER_ADDR_ENV}={@code 127.0.0.1}, {@value #MASTER_PORT_ENV}
 * (a port that was free when checked; another process could take it before rank 0 binds, a small race accepted for a
 * test tool) and {@value #RENDEZVOUS_DIR_ENV}, a fresh temporary directory for a {@code FileStore} that is deleted
 * when the run ends. Children's stdout and stderr are merged and copied to the output stream with a
 * {@code [rank N] } prefix.
 *
 * <p>If a rank exits with a non-zero code, or the timeout passes, every remaining rank is killed together with
 * its child processes ({@code destroyForcibly} on the whole process tree). {@link #run} returns only after all
 * children are gone and their output is drained.
 *
 * <pre>{@code
 * ClusterResult result = new LoopbackCluster(3)
 *     .timeout(Duration.ofSeconds(60))
 *     .output(System.out)
 *     .run("com.example.MyRank", "--iterations", "10");
 * assertTrue(result.succeeded(), result.toString());
 * }</pre>
 *
 * <p>Configure on one thread, then call {@link #run} (which may be called again for another run).
 */
public final class LoopbackCluster
{
    /** Rank of the child, {@code 0..size-1}. */
    public static final String RANK_ENV = "RANK";
    /** Number of ranks. */
    public static final String WORLD_SIZE_ENV = "WORLD_SIZE";
    /** Address of rank 0's TcpStore server: always {@code 127.0.0.1}. */
    public static final String MASTER_ADDR_ENV = "MASTER_ADDR";
    /** Port for rank 0's TcpStore server. */
    public static final String MASTER_PORT_ENV = "MASTER_PORT";
    /** Directory for a FileStore shared by the ranks of this run. */
    public static final String RENDEZVOUS_DIR_ENV = "VERBS4J_RENDEZVOUS_DIR";
    /** Default limit for a run. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

    private static final Duration DRAIN_GRACE = Duration.ofSeconds(5);

    private final int size;
    private Duration timeout = DEFAULT_TIMEOUT;
    private PrintStream output = System.out;
    private List<String> extraJvmArgs = List.of();
    private Map<String, String> extraEnv = Map.of();
    private boolean bindToCores;

    /**
     * Configures a cluster of {@code size} ranks.
     *
     * @param size number of processes, at least 1.
     */
    public LoopbackCluster(final int size)
    {
        if (size < 1)
        {
            throw new IllegalArgumentException("cluster size must be >= 1 but was " + size);
        }
        this.size = size;
    }

    /**
     * Sets the limit for the whole run (default {@link #DEFAULT_TIMEOUT}).
     *
     * @param timeout positive duration.
     * @return this.
     */
    public LoopbackCluster timeout(final Duration timeout)
    {
        if (null == timeout || timeout.isNegative() || timeout.isZero())
        {
            throw new IllegalArgumentException("timeout must be positive but was " + timeout);
        }
        this.timeout = timeout;
        return this;
    }

    /**
     * Sets where prefixed child output goes (default {@code System.out}).
     *
     * @param output the stream; lines are written under its lock.
     * @return this.
     */
    public LoopbackCluster output(final PrintStream output)
    {
        if (null == output)
        {
            throw new IllegalArgumentException("output stream must not be null");
        }
        this.output = output;
        return this;
    }

    /**
     * Adds JVM arguments after {@link JvmFlags#LIST} (for example {@code -Xmx256m}).
     *
     * @param args the arguments.
     * @return this.
     */
    public LoopbackCluster jvmArgs(final String... args)
    {
        this.extraJvmArgs = List.of(args);
        return this;
    }

    /**
     * Binds each rank process to a core of its own ({@code taskset -c}), as {@code mpirun --bind-to core} does, when
     * there are at least as many allowed CPUs as ranks and {@code taskset} exists; otherwise ranks run unbound. A
     * bound rank finds its CPU in the environment variable {@code VERBS4J_BOUND_CPU}. Off by default.
     *
     * @param bind whether to bind.
     * @return this.
     */
    public LoopbackCluster bindToCores(final boolean bind)
    {
        this.bindToCores = bind;
        return this;
    }

    /**
     * Adds environment variables for every child (applied before the cluster's own, which win).
     *
     * @param env the variables.
     * @return this.
     */
    public LoopbackCluster env(final Map<String, String> env)
    {
        this.extraEnv = Map.copyOf(env);
        return this;
    }

    /**
     * Number of ranks.
     *
     * @return the size.
     */
    public int size()
    {
        return size;
    }

    /**
     * Launches every rank and waits for all of them.
     *
     * @param mainClass fully qualified name of a class with {@code main(String[])} on this class path.
     * @param args      arguments passed to every rank.
     * @return the exit codes and how the run ended.
     * @throws UncheckedIOException if a process cannot be started (the ones already started are killed).
     */
    public ClusterResult run(final String mainClass, final String... args)
    {
        if (null == mainClass || mainClass.isBlank())
        {
            throw new IllegalArgumentException("main class must be a fully qualified class name");
        }
        final Path rendezvousDir = createTempDirectory();
        final Process[] processes = new Process[size];
        final Thread[] pumps = new Thread[size];
        try
        {
            final int masterPort = freePort();
            final LinkedBlockingQueue<Integer> exits = new LinkedBlockingQueue<>();
            for (int rank = 0; rank < size; rank++)
            {
                processes[rank] = start(rank, masterPort, rendezvousDir, mainClass, args);
                pumps[rank] = new Thread(new OutputPump(processes[rank].getInputStream(), output, rank),
                    "verbs4j-cluster-output-" + rank);
                pumps[rank].setDaemon(true);
                pumps[rank].start();
                final int exitedRank = rank;
                processes[rank].onExit().thenRun(() -> exits.add(exitedRank));
            }
            return await(processes, exits);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("could not start a rank of " + mainClass + ": " + ex.getMessage(), ex);
        }
        finally
        {
            for (final Process process : processes)
            {
                if (null != process)
                {
                    killTree(process);
                }
            }
            joinPumps(pumps);
            deleteRecursively(rendezvousDir);
        }
    }

    private ClusterResult await(final Process[] processes, final LinkedBlockingQueue<Integer> exits)
    {
        final boolean[] killed = new boolean[size];
        final long deadlineNs = System.nanoTime() + timeout.toNanos();
        int exited = 0;
        boolean timedOut = false;
        boolean failed = false;
        try
        {
            while (exited < size && !failed)
            {
                final long remainingNs = deadlineNs - System.nanoTime();
                final Integer rank = remainingNs > 0 ? exits.poll(remainingNs, TimeUnit.NANOSECONDS) : null;
                if (null == rank)
                {
                    timedOut = true;
                    break;
                }
                exited++;
                failed = 0 != processes[rank].exitValue();
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            timedOut = true;
        }
        if (timedOut || failed)
        {
            for (int rank = 0; rank < size; rank++)
            {
                if (processes[rank].isAlive())
                {
                    killed[rank] = true;
                    killTree(processes[rank]);
                }
            }
            synchronized (output)
            {
                output.println("[cluster] " + (timedOut ? "timeout after " + timeout.toMillis() + " ms" :
                    "a rank failed") + ": killed the remaining ranks");
            }
        }
        final int[] codes = new int[size];
        for (int rank = 0; rank < size; rank++)
        {
            codes[rank] = waitForExit(processes[rank]);
        }
        return new ClusterResult(codes, killed, timedOut);
    }

    private Process start(
        final int rank, final int masterPort, final Path rendezvousDir, final String mainClass, final String[] args)
        throws IOException
    {
        final int[] cpus = bindToCores ? CoreBinding.plan(size) : null;
        final JvmLauncher launcher = JvmLauncher.of(mainClass).jvmArgs(extraJvmArgs).args(Arrays.asList(args));
        if (null != cpus)
        {
            launcher.prefix(List.of(CoreBinding.taskset(), "-c", Integer.toString(cpus[rank])));
        }

        final ProcessBuilder builder = launcher.processBuilder().redirectErrorStream(true);
        final Map<String, String> env = builder.environment();
        env.putAll(extraEnv);
        env.put(RANK_ENV, Integer.toString(rank));
        env.put(WORLD_SIZE_ENV, Integer.toString(size));
        env.put(MASTER_ADDR_ENV, "127.0.0.1");
        env.put(MASTER_PORT_ENV, Integer.toString(masterPort));
        env.put(RENDEZVOUS_DIR_ENV, rendezvousDir.toString());
        if (null != cpus)
        {
            env.put(CoreBinding.BOUND_CPU_ENV, Integer.toString(cpus[rank]));
        }
        return builder.start();
    }

    private static void killTree(final Process process)
    {
        ProcessReaper.killTree(process, DRAIN_GRACE);
    }

    private static int waitForExit(final Process process)
    {
        try
        {
            if (process.waitFor(DRAIN_GRACE.toMillis(), TimeUnit.MILLISECONDS))
            {
                return process.exitValue();
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        killTree(process);
        return -1;
    }

    private static void joinPumps(final Thread[] pumps)
    {
        for (final Thread pump : pumps)
        {
            if (null != pump)
            {
                try
                {
                    pump.join(DRAIN_GRACE.toMillis());
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private static int freePort()
    {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot find a free loopback port for MASTER_PORT", ex);
        }
    }

    private static Path createTempDirectory()
    {
        try
        {
            return Files.createTempDirectory("verbs4j-cluster-");
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot create the rendezvous directory in java.io.tmpdir", ex);
        }
    }

    private void deleteRecursively(final Path root)
    {
        try (Stream<Path> paths = Files.walk(root))
        {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
        catch (final IOException ex)
        {
            // Leave it to the OS's temp cleaning rather than fail the run over a leftover directory.
            synchronized (output)
            {
                output.println("[cluster] could not delete " + root + ": " + ex);
            }
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.system.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.verbs4j.config.DeviceContext;

/**
 * Shared settings of the system tests: the peer timeout they configure, the bounds they assert (that timeout plus
 * generous slack: the machine is shared), private shm directories, and the report files under
 * {@code target/reliability} that docs/RELIABILITY.md quotes.
 */
public final class SystemTests
{
    /** Peer timeout configured on every device of these tests (the provider default is 500 ms). */
    public static final long PEER_TIMEOUT_MS = 1_000;
    /**
     * Bound asserted for noticing a dead or stopped peer: the providers promise the peer timeout (plus a check
     * interval); 4x + 2 s is slack for a loaded 2-core machine, the same margin as the conformance kit.
     */
    public static final long DETECTION_BOUND_MS = 4 * PEER_TIMEOUT_MS + 2_000;
    /** Property of the shm provider naming its directory. */
    public static final String SHM_DIR_PROP = "verbs4j.shm.dir";
    /** The providers under test. */
    public static final List<String> PROVIDERS = List.of("shm", "tcp");
    /** JVM arguments of short-lived children (kill points): small heap, quick start. */
    public static final List<String> SMALL_CHILD = List.of("-Xmx192m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
        "-Xss512k");

    private SystemTests()
    {
    }

    /**
     * @param name system property (set by the pom).
     * @param def  default when run outside Maven.
     * @return its value.
     */
    public static int intProperty(final String name, final int def)
    {
        return Integer.getInteger(name, def);
    }

    /** @return the seed of the randomised runs ({@code verbs4j.faults.seed}). */
    public static long seed()
    {
        return Long.getLong("verbs4j.faults.seed", 20240601L);
    }

    /**
     * A fresh directory under /dev/shm for one test class, so that leak checks see only this test's files. Dirs of
     * dead test JVMs (SIGKILLed before cleaning up) are removed first.
     *
     * @param name a label.
     * @return the directory (mode 0700).
     */
    public static Path newShmDir(final String name)
    {
        sweepDeadDirs();
        final Path dir = Path.of("/dev/shm").resolve("verbs4j-systest-" + ProcessHandle.current().pid() + "-" + name);
        try
        {
            deleteDir(dir);
            Files.createDirectories(dir);
        }
        catch (final RuntimeException ex)
        {
            throw ex;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteDir(dir)));
        return dir;
    }

    private static void sweepDeadDirs()
    {
        try (Stream<Path> dirs = Files.list(Path.of("/dev/shm")))
        {
            dirs.filter(d -> d.getFileName().toString().startsWith("verbs4j-systest-")).forEach(d ->
            {
                try
                {
                    final long pid = Long.parseLong(d.getFileName().toString().split("-")[2]);
                    if (ProcessHandle.of(pid).isEmpty())
                    {
                        deleteDir(d);
                    }
                }
                catch (final RuntimeException ignore)
                {
                    // not ours
                }
            });
        }
        catch (final IOException ignore)
        {
            // nothing to sweep
        }
    }

    /**
     * @param dir a directory to remove with its content; quiet.
     */
    public static void deleteDir(final Path dir)
    {
        if (!Files.exists(dir))
        {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir))
        {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        catch (final IOException | RuntimeException ignore)
        {
            // best effort
        }
    }

    /**
     * @param provider shm or tcp.
     * @param shmDir   the shm directory (ignored by tcp).
     * @return a context with the tests' peer timeout.
     */
    public static DeviceContext context(final String provider, final Path shmDir)
    {
        final DeviceContext context = new DeviceContext().peerTimeoutNs(TimeUnit.MILLISECONDS.toNanos(PEER_TIMEOUT_MS));
        if ("shm".equals(provider))
        {
            context.property(SHM_DIR_PROP, shmDir.toString());
        }
        return context;
    }

    /**
     * @param provider shm or tcp.
     * @param shmDir   the shm directory.
     * @return the arguments {@link io.verbs4j.system.FaultPeerMain} needs for the same context.
     */
    public static List<String> peerArgs(final String provider, final Path shmDir)
    {
        final List<String> args = new ArrayList<>();
        args.add(provider);
        args.add("peerTimeoutMs=" + PEER_TIMEOUT_MS);
        args.add(SHM_DIR_PROP + "=" + shmDir);
        return args;
    }

    /**
     * @param provider shm or tcp.
     * @param uniqueName a name unique on this host.
     * @return an endpoint this process can listen on.
     */
    public static String listenEndpoint(final String provider, final String uniqueName)
    {
        return "shm".equals(provider) ? "shm://" + uniqueName : "tcp://127.0.0.1:0";
    }

    /**
     * Appends lines to {@code target/reliability/<file>} (created), prefixed by nothing; also prints them.
     *
     * @param file  report file name.
     * @param lines the lines.
     */
    public static synchronized void report(final String file, final List<String> lines)
    {
        final Path dir = Path.of(System.getProperty("verbs4j.faults.reportDir", "target/reliability"));
        try
        {
            Files.createDirectories(dir);
            final List<String> stamped = new ArrayList<>();
            for (final String line : lines)
            {
                stamped.add(line);
                System.out.println("[reliability] " + line);
            }
            Files.write(dir.resolve(file), stamped, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * @param file report file name.
     * @param line one line.
     */
    public static void report(final String file, final String line)
    {
        report(file, List.of(line));
    }

    /** @return a header line with the time and the machine's load. */
    public static String runHeader()
    {
        String load = "?";
        try
        {
            load = Files.readString(Path.of("/proc/loadavg")).trim();
        }
        catch (final IOException ignore)
        {
            // not Linux
        }
        return "# run " + Instant.now() + " java " + System.getProperty("java.version") + " cpus " +
            Runtime.getRuntime().availableProcessors() + " loadavg " + load;
    }

    /**
     * @param map counts.
     * @return "k=v k=v".
     */
    public static String format(final Map<String, ? extends Number> map)
    {
        final StringBuilder sb = new StringBuilder();
        map.forEach((k, v) -> sb.append(sb.length() == 0 ? "" : " ").append(k).append('=').append(v));
        return sb.toString();
    }
}

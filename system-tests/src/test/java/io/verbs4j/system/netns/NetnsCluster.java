// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.system.netns;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.verbs4j.launch.JvmLauncher;
import io.verbs4j.system.support.SystemTests;

/**
 * Test "hosts" built from Linux network namespaces: {@code n} namespaces, each with {@code lo} and one veth
 * {@code eth0} ({@code 10.231.7.N/24} for host N), whose other ends are ports {@code pN} of a bridge that lives in a
 * namespace of its own, so nothing of this fixture is visible in the root namespace (and concurrent runs, which use
 * other namespace names, cannot collide even though they use the same subnet).
 * <pre>
 *   v4j-PID-h1 [eth0 10.231.7.1] ─veth─ p1 ┐
 *   v4j-PID-h2 [eth0 10.231.7.2] ─veth─ p2 ┼─ br0 (in v4j-PID-br)
 *   v4j-PID-h3 [eth0 10.231.7.3] ─veth─ p3 ┘
 * </pre>
 * Conditions: {@link #rateLimit} (tc tbf on a host's eth0: its outbound rate), {@link #loss} (an nftables
 * {@code netdev} egress chain on a host's eth0: {@code numgen random mod 100 < N drop}, i.e. real loss after the
 * host's TCP stack; netem is not in this kernel), {@link #linkDown}/{@link #linkUp} (the bridge port of a host:
 * a pulled cable, every peer just hears nothing), {@link #hostLinkDown} (the host's own eth0).
 *
 * <p>{@link #exec} starts a JVM in a host with {@code ip netns exec} in front of {@link JvmLauncher}'s command (the
 * test's class path, {@link io.verbs4j.launch.JvmFlags}, shm files in this fixture's own /dev/shm directory).
 * {@link #close} kills every process started here and deletes the namespaces (with their veths, qdiscs and nft
 * tables); {@link #sweepLeftovers} deletes namespaces of earlier test JVMs that died without closing. Needs root,
 * {@code ip netns} and {@code nft}: {@link #unavailableReason()} says what is missing.
 */
public final class NetnsCluster implements AutoCloseable
{
    /** Prefix of every namespace this fixture creates: {@code v4j-<pid of the test JVM>-...}. */
    public static final String PREFIX = "v4j-";
    /** The hosts' subnet (first three octets); host {@code i} (1-based) is {@code .i}. */
    public static final String SUBNET = "10.231.7.";
    /** JVM arguments of the children: small heap, quick start (many JVMs on two cores). */
    public static final List<String> CHILD_JVM_ARGS = List.of("-Xmx256m", "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1", "-Xss512k");
    private static final long COMMAND_TIMEOUT_MS = 20_000;

    private final String tag;
    private final int hosts;
    private final Path shmDir;
    private final List<NsProcess> processes = new ArrayList<>();
    private boolean closed;

    /**
     * Builds {@code hosts} hosts on a bridge. On any failure everything created so far is deleted again.
     *
     * @param label  a short label (part of the namespace names and the shm directory).
     * @param hosts  number of hosts, 1..250.
     */
    public NetnsCluster(final String label, final int hosts)
    {
        if (hosts < 1 || hosts > 250)
        {
            throw new IllegalArgumentException("hosts " + hosts);
        }
        this.tag = PREFIX + ProcessHandle.current().pid() + "-" + label;
        this.hosts = hosts;
        sweepLeftovers();
        this.shmDir = SystemTests.newShmDir("netns-" + label);
        try
        {
            run("ip", "netns", "add", bridgeNs());
            run("ip", "-n", bridgeNs(), "link", "add", "br0", "type", "bridge");
            run("ip", "-n", bridgeNs(), "link", "set", "br0", "up");
            for (int h = 1; h <= hosts; h++)
            {
                final String ns = ns(h);
                run("ip", "netns", "add", ns);
                run("ip", "-n", bridgeNs(), "link", "add", port(h), "type", "veth", "peer", "name", "eth0",
                    "netns", ns);
                run("ip", "-n", bridgeNs(), "link", "set", port(h), "master", "br0");
                run("ip", "-n", bridgeNs(), "link", "set", port(h), "up");
                run("ip", "-n", ns, "addr", "add", address(h) + "/24", "dev", "eth0");
                run("ip", "-n", ns, "link", "set", "eth0", "up");
                run("ip", "-n", ns, "link", "set", "lo", "up");
            }
        }
        catch (final RuntimeException ex)
        {
            close();
            throw ex;
        }
    }

    /**
     * @return null when this machine can build the cluster, else why not (for an assumption's message).
     */
    public static String unavailableReason()
    {
        if (!System.getProperty("os.name", "").toLowerCase().contains("linux"))
        {
            return "network namespaces need Linux";
        }
        if (!isRoot())
        {
            return "creating network namespaces needs root (uid 0); run as root, as CI does";
        }
        if (0 != quiet("ip", "netns", "list"))
        {
            return "'ip netns' (iproute2) is not available";
        }
        if (0 != quiet("nft", "--version"))
        {
            return "'nft' (nftables) is not installed: apt-get install nftables";
        }
        if (0 != quiet("tc", "-V"))
        {
            return "'tc' (iproute2) is not available";
        }
        return null;
    }

    private static boolean isRoot()
    {
        try
        {
            for (final String line : Files.readAllLines(Path.of("/proc/self/status")))
            {
                if (line.startsWith("Uid:"))
                {
                    return "0".equals(line.split("\\s+")[1]);
                }
            }
        }
        catch (final IOException ignore)
        {
            // not Linux
        }
        return false;
    }

    /**
     * Deletes the namespaces of test JVMs that are gone (their pid is in the name), with everything in them, and
     * their shm directories are swept by {@link SystemTests#newShmDir}.
     */
    public static void sweepLeftovers()
    {
        for (final String ns : namespaces())
        {
            if (!ns.startsWith(PREFIX))
            {
                continue;
            }
            try
            {
                final long pid = Long.parseLong(ns.substring(PREFIX.length()).split("-")[0]);
                if (ProcessHandle.of(pid).isEmpty())
                {
                    killNamespacePids(ns);
                    quiet("ip", "netns", "del", ns);
                }
            }
            catch (final NumberFormatException ignore)
            {
                // not ours
            }
        }
    }

    /** @return the names of all network namespaces. */
    static List<String> namespaces()
    {
        final List<String> names = new ArrayList<>();
        for (final String line : output("ip", "netns", "list").split("\n"))
        {
            final String name = line.trim().split("\\s+")[0];
            if (!name.isEmpty())
            {
                names.add(name);
            }
        }
        return names;
    }

    /** @return the number of hosts. */
    public int hosts()
    {
        return hosts;
    }

    /**
     * @param host 1-based.
     * @return its namespace name.
     */
    public String ns(final int host)
    {
        return tag + "-h" + host;
    }

    /**
     * @param host 1-based.
     * @return its IPv4 address.
     */
    public static String address(final int host)
    {
        return SUBNET + host;
    }

    /** @return the shm directory the children use. */
    public Path shmDir()
    {
        return shmDir;
    }

    private String bridgeNs()
    {
        return tag + "-br";
    }

    private static String port(final int host)
    {
        return "p" + host;
    }

    /**
     * Limits a host's outbound rate with a token bucket filter on its eth0.
     *
     * @param host   1-based.
     * @param rate   tc rate, e.g. {@code 100mbit}.
     */
    public void rateLimit(final int host, final String rate)
    {
        run("ip", "netns", "exec", ns(host), "tc", "qdisc", "replace", "dev", "eth0", "root", "tbf", "rate", rate,
            "burst", "64kb", "latency", "50ms");
    }

    /**
     * Drops {@code percent}% of a host's outbound packets at random (after its TCP stack: TCP sees real loss).
     *
     * @param host    1-based.
     * @param percent 1..99.
     */
    public void loss(final int host, final int percent)
    {
        runWithInput("table netdev v4jloss\n" +
            "delete table netdev v4jloss\n" +
            "table netdev v4jloss {\n" +
            "  chain egress {\n" +
            "    type filter hook egress device \"eth0\" priority 0; policy accept;\n" +
            "    numgen random mod 100 < " + percent + " counter drop\n" +
            "  }\n" +
            "}\n", "ip", "netns", "exec", ns(host), "nft", "-f", "-");
    }

    /**
     * @param host 1-based.
     * @return packets the loss rule of the host dropped so far (0 without a rule).
     */
    public long droppedPackets(final int host)
    {
        final String rules = output("ip", "netns", "exec", ns(host), "nft", "list", "table", "netdev", "v4jloss");
        final int at = rules.indexOf("counter packets ");
        return at < 0 ? 0 : Long.parseLong(rules.substring(at + "counter packets ".length()).split("\\s+")[0]);
    }

    /**
     * Takes a host's bridge port down: the host is cut off, every peer just stops hearing from it.
     *
     * @param host 1-based.
     */
    public void linkDown(final int host)
    {
        run("ip", "-n", bridgeNs(), "link", "set", port(host), "down");
    }

    /**
     * Takes a host's own eth0 down (inside the host): its routes to the subnet go away, so the host's own sends fail
     * at once, while its peers hear nothing.
     *
     * @param host 1-based.
     */
    public void hostLinkDown(final int host)
    {
        run("ip", "-n", ns(host), "link", "set", "eth0", "down");
    }

    /**
     * Brings a host's bridge port up again.
     *
     * @param host 1-based.
     */
    public void linkUp(final int host)
    {
        run("ip", "-n", bridgeNs(), "link", "set", port(host), "up");
    }

    /**
     * Starts a JVM in a host.
     *
     * @param label     for messages.
     * @param host      1-based.
     * @param env       extra environment variables.
     * @param mainClass the main class (on the test class path).
     * @param args      its arguments.
     * @return the process; it is killed by {@link #close} if still running.
     */
    public NsProcess exec(final String label, final int host, final Map<String, String> env, final Class<?> mainClass,
        final List<String> args)
    {
        final List<String> jvmArgs = new ArrayList<>(CHILD_JVM_ARGS);
        jvmArgs.add("-D" + SystemTests.SHM_DIR_PROP + "=" + shmDir);
        final List<String> command = JvmLauncher.of(mainClass).prefix(List.of("ip", "netns", "exec", ns(host)))
            .jvmArgs(jvmArgs).args(args).command();
        final NsProcess process = NsProcess.start(label, command, env);
        synchronized (processes)
        {
            processes.add(process);
        }
        return process;
    }

    /**
     * Kills every process started here (and anything else still running in the namespaces), deletes the
     * namespaces and the shm directory. Idempotent; never throws.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        synchronized (processes)
        {
            for (final NsProcess process : processes)
            {
                process.kill();
            }
        }
        for (int h = 1; h <= hosts; h++)
        {
            killNamespacePids(ns(h));
            quiet("ip", "netns", "del", ns(h));
        }
        quiet("ip", "netns", "del", bridgeNs());
        if (null != shmDir)
        {
            SystemTests.deleteDir(shmDir);
        }
    }

    /** SIGKILLs the processes left in one of this fixture's namespaces (started by these tests, found by pid). */
    private static void killNamespacePids(final String ns)
    {
        for (final String pid : output("ip", "netns", "pids", ns).split("\\s+"))
        {
            if (!pid.isEmpty())
            {
                ProcessHandle.of(Long.parseLong(pid)).ifPresent(ProcessHandle::destroyForcibly);
            }
        }
    }

    // ------------------------------------------------------------------------------------------- command helpers

    private static void run(final String... command)
    {
        runWithInput(null, command);
    }

    private static void runWithInput(final String input, final String... command)
    {
        final Result result = exec(input, command);
        if (0 != result.code)
        {
            throw new IllegalStateException(String.join(" ", command) + " failed (" + result.code + "): " +
                result.output.trim());
        }
    }

    private static int quiet(final String... command)
    {
        return exec(null, command).code;
    }

    private static String output(final String... command)
    {
        final Result result = exec(null, command);
        return 0 == result.code ? result.output : "";
    }

    private record Result(int code, String output)
    {
    }

    private static Result exec(final String input, final String... command)
    {
        try
        {
            final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            if (null != input)
            {
                process.getOutputStream().write(input.getBytes(StandardCharsets.UTF_8));
            }
            process.getOutputStream().close();
            final byte[] out = process.getInputStream().readAllBytes();
            if (!process.waitFor(COMMAND_TIMEOUT_MS, TimeUnit.MILLISECONDS))
            {
                process.destroyForcibly();
                return new Result(-1, "timed out");
            }
            return new Result(process.exitValue(), new String(out, StandardCharsets.UTF_8));
        }
        catch (final IOException ex)
        {
            return new Result(-1, ex.toString());
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return new Result(-1, "interrupted");
        }
    }
}

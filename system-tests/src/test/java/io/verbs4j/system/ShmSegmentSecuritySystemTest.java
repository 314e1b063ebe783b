// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.system;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.verbs4j.Access;
import io.verbs4j.CompletionQueue;
import io.verbs4j.ConnectionException;
import io.verbs4j.ConnectionRequest;
import io.verbs4j.Device;
import io.verbs4j.Listener;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.QueuePair;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.Verbs;
import io.verbs4j.VerbsException;
import io.verbs4j.config.DeviceContext;
import io.verbs4j.shm.ShmConfiguration;
import io.verbs4j.shm.protocol.SegmentHeader;
import io.verbs4j.system.support.SystemTests;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * shm segments are private to their user: every file the shm provider creates (device segment, region, listener,
 * connection segment during a handshake) is mode 0600, owned by this user, inside a per-user directory of mode 0700,
 * in the configured directory and in the default /dev/shm; a process of another user ({@code nobody}, through
 * {@code setpriv}; needs root, skipped otherwise) can neither read nor map nor write any of them, even under a
 * world-writable sticky directory like /dev/shm; it cannot plant a listener file under this user's name (a
 * connector would hand it the private data of the handshake, i.e. rkeys and addresses), and a per-user directory it
 * made in advance is refused with a message that says so.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ShmSegmentSecuritySystemTest
{
    private static final Set<PosixFilePermission> OWNER_RW = PosixFilePermissions.fromString("rw-------");
    private static final String PROBE = String.join("\n",
        "import java.nio.channels.FileChannel;",
        "import java.nio.file.*;",
        "public class Probe {",
        "  public static void main(String[] a) throws Exception {",
        "    if (a[0].equals(\"plant\")) {",
        "      byte[] b = Files.readAllBytes(Paths.get(a[2]));",
        "      long pid = ProcessHandle.current().pid();",
        "      java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.nativeOrder())" +
            ".putLong(Integer.parseInt(a[3]), pid)",
        "        .putLong(Integer.parseInt(a[4]), 0L);",
        "      Path p = Paths.get(a[1]);",
        "      try {",
        "        Files.createDirectories(p.getParent());",
        "        Files.write(p, b, StandardOpenOption.CREATE_NEW);",
        "        Files.setPosixFilePermissions(p, " +
            "java.nio.file.attribute.PosixFilePermissions.fromString(\"rw-rw-rw-\"));",
        "      } catch (Exception e) {",
        "        System.out.println(\"DENIED \" + e.getClass().getSimpleName()); System.out.flush();",
        "        return;",
        "      }",
        "      System.out.println(\"PLANTED \" + pid); System.out.flush();",
        "      Thread.sleep(Long.parseLong(a[5]));",
        "      return;",
        "    }",
        "    for (String f : a) {",
        "      Path p = Paths.get(f);",
        "      for (String mode : new String[]{\"r\", \"rw\"}) {",
        "        try (FileChannel c = mode.equals(\"r\") ? FileChannel.open(p, StandardOpenOption.READ)",
        "            : FileChannel.open(p, StandardOpenOption.READ, StandardOpenOption.WRITE)) {",
        "          c.map(mode.equals(\"r\") ? FileChannel.MapMode.READ_ONLY : FileChannel.MapMode.READ_WRITE, 0,",
        "            Math.min(4096, c.size()));",
        "          System.out.println(\"OPENED \" + mode + \" \" + f);",
        "        } catch (Exception e) {",
        "          System.out.println(\"DENIED \" + mode + \" \" + f + \" \" + e.getClass().getSimpleName());",
        "        }",
        "      }",
        "    }",
        "  }",
        "}");

    private final List<Path> cleanup = new ArrayList<>();

    @AfterEach
    void clean()
    {
        cleanup.forEach(SystemTests::deleteDir);
    }

    @Test
    void everyFileTheShmProviderCreatesIsOwnerReadWriteOnly() throws Exception
    {
        final Path dir = SystemTests.newShmDir("perm");
        cleanup.add(dir);
        final TreeMap<String, String> seen = new TreeMap<>();
        final List<Path> duringHandshake = withAllSegmentKinds(dir, files ->
        {
            for (final Path f : files)
            {
                seen.put(f.getFileName().toString(), describe(f));
            }
        });
        assertKinds(duringHandshake);
        seen.forEach((name, mode) -> assertEquals("rw------- uid " + uid(), mode, name));
        // The default location too.
        assertEquals("rwx------ uid " + uid(), describe(userDir(dir)), "the per-user directory");
        try (Device device = Verbs.open("shm", new DeviceContext()))
        {
            assertEquals("rwx------ uid " + uid(), describe(userDir(Path.of("/dev/shm"))), "the per-user directory");
            final List<Path> mine = listOwn(Path.of("/dev/shm"));
            assertFalse(mine.isEmpty(), "the device segment is in /dev/shm");
            for (final Path f : mine)
            {
                assertEquals("rw------- uid " + uid(), describe(f), f.toString());
            }
            device.allocateProtectionDomain().allocate(4096, Access.ALL);
            for (final Path f : listOwn(Path.of("/dev/shm")))
            {
                assertEquals("rw------- uid " + uid(), describe(f), f.toString());
            }
        }
        SystemTests.report("security.txt", "0600: " + seen.size() + " files of every kind checked " + seen.keySet());
    }

    @Test
    void anotherUserCannotOpenOrMapTheSegments() throws Exception
    {
        assumeTrue(isRoot(), "needs root to run a probe as another user (setpriv --reuid=nobody); skipped");
        final Path dir = worldWritableDir("other");
        final Path probe = probeSource();
        final List<String> asNobody = new ArrayList<>();
        final List<String> asOwner = new ArrayList<>();
        final List<Path> files = withAllSegmentKinds(dir, list ->
        {
            final List<String> names = list.stream().map(Path::toString).collect(Collectors.toList());
            asOwner.addAll(runProbe(probe, false, names));
            asNobody.addAll(runProbe(probe, true, names));
        });
        assertKinds(files);
        assertEquals(2 * files.size(), asOwner.stream().filter(l -> l.startsWith("OPENED")).count(),
            "the probe itself works (as the owner it opens everything): " + asOwner);
        assertEquals(2 * files.size(), asNobody.stream().filter(l -> l.startsWith("DENIED")).count(),
            "another user opened a segment: " + asNobody);
        assertTrue(asNobody.stream().allMatch(l -> l.endsWith("AccessDeniedException")), asNobody.toString());
        SystemTests.report("security.txt", "other user (nobody): " + asNobody.size() + " open/map attempts on " +
            files.size() + " segment files, all AccessDeniedException");
    }

    @Test
    void anotherUserCannotPlantAListenerInThisUsersDirectory() throws Exception
    {
        assumeTrue(isRoot(), "needs root to run a probe as another user (setpriv --reuid=nobody); skipped");
        final Path dir = worldWritableDir("squat");
        final Path probe = probeSource();
        final String name = "squat-" + ProcessHandle.current().pid();
        Verbs.open("shm", SystemTests.context("shm", dir)).close(); // makes this user's 0700 directory
        final Path planted = userDir(dir).resolve("verbs4j-" + uid() + "-" + name + ".listen");
        final String line = plantAsNobody(probe, planted);
        assertEquals("DENIED AccessDeniedException", line, "another user wrote into this user's directory");
        assertFalse(Files.exists(planted));
        final byte[] secret = "rkey=0x5EC12E7 addr=0xDEADBEEF".getBytes(StandardCharsets.US_ASCII);
        final String message = connectRefused(dir, name, secret);
        SystemTests.report("security.txt", "another user planting a listener in the per-user directory: " + line +
            "; connect to that name refused (" + message + ")");
    }

    @Test
    void aPerUserDirectoryMadeByAnotherUserIsRefused() throws Exception
    {
        assumeTrue(isRoot(), "needs root to run a probe as another user (setpriv --reuid=nobody); skipped");
        final Path dir = worldWritableDir("squatdir");
        final Path probe = probeSource();
        final String name = "squat-" + ProcessHandle.current().pid();
        // nobody makes this user's directory first, with a listener file of this user's name inside.
        final Path planted = userDir(dir).resolve("verbs4j-" + uid() + "-" + name + ".listen");
        final String line = plantAsNobody(probe, planted);
        assertTrue(line.startsWith("PLANTED "), line);
        assertEquals(65534L, ((Number)Files.getAttribute(userDir(dir), "unix:uid")).longValue(), "owned by nobody");
        final VerbsException refused = assertThrows(VerbsException.class,
            () -> Verbs.open("shm", SystemTests.context("shm", dir)).close());
        assertTrue(refused.getMessage().contains("belongs to uid 65534"), refused.getMessage());
        assertTrue(refused.getMessage().contains(ShmConfiguration.DIR_PROP_NAME), refused.getMessage());
        SystemTests.report("security.txt", "per-user directory made in advance by another user: device open " +
            "refused (" + refused.getMessage() + ")");
    }

    private static String connectRefused(final Path dir, final String name, final byte[] secret)
    {
        try (Device device = Verbs.open("shm", SystemTests.context("shm", dir)))
        {
            final ProtectionDomain pd = device.allocateProtectionDomain();
            final CompletionQueue cq = device.createCompletionQueue(64);
            final QueuePair qp = pd.createQueuePair(new QueuePairConfig(cq).sendDepth(4).recvDepth(4));
            device.connectionManager().connect(qp, "shm://" + name, secret, Duration.ofSeconds(2));
        }
        catch (final ConnectionException ex)
        {
            return ex.getMessage();
        }
        throw new AssertionError("connected to shm://" + name + ", which nobody of this user listens on");
    }

    /** Runs the probe as nobody to write a (genuine-looking) listener file at {@code planted}; returns its answer. */
    private String plantAsNobody(final Path probe, final Path planted) throws Exception
    {
        final byte[] genuine;
        final Path scratch = SystemTests.newShmDir("squat-scratch");
        cleanup.add(scratch);
        try (Device device = Verbs.open("shm", SystemTests.context("shm", scratch));
            Listener ignored = device.connectionManager().listen("shm://genuine"))
        {
            genuine = Files.readAllBytes(listOwn(scratch).stream().filter(p -> p.toString().endsWith(".listen"))
                .findFirst().orElseThrow());
        }
        final Path copy = probe.resolveSibling("listener.bin");
        Files.write(copy, genuine);
        Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("rw-r--r--"));
        final Process squatter = new ProcessBuilder(command(probe, true, List.of("plant", planted.toString(),
            copy.toString(), Integer.toString(SegmentHeader.PID_OFFSET),
            Integer.toString(SegmentHeader.START_TIME_OFFSET), "1"))).redirectErrorStream(true).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(squatter.getInputStream(),
            StandardCharsets.UTF_8)))
        {
            String line;
            while (null != (line = out.readLine()))
            {
                if (line.startsWith("PLANTED ") || line.startsWith("DENIED "))
                {
                    return line;
                }
            }
            throw new IllegalStateException("the probe printed no answer");
        }
        finally
        {
            squatter.destroyForcibly();
            squatter.waitFor(10, TimeUnit.SECONDS);
        }
    }

    // --------------------------------------------------------------------------------------------------- helpers

    /** Receives the files present while a handshake is pending. */
    private interface FilesAction
    {
        void run(List<Path> files) throws Exception;
    }

    /**
     * Creates every kind of segment in {@code dir} — two devices (.dev), an allocated region (.mr), a listener
     * (.listen), and a connection segment (.conn, which exists only while the handshake is pending) — and runs
     * {@code action} on the list of files while the handshake waits.
     */
    private static List<Path> withAllSegmentKinds(final Path dir, final FilesAction action) throws Exception
    {
        try (Device server = Verbs.open("shm", SystemTests.context("shm", dir));
            Device client = Verbs.open("shm", SystemTests.context("shm", dir)))
        {
            final ProtectionDomain spd = server.allocateProtectionDomain();
            spd.allocate(1 << 16, Access.ALL);
            final CompletionQueue scq = server.createCompletionQueue(64);
            final Listener listener = server.connectionManager().listen("shm://sec-" + ProcessHandle.current().pid());
            final ProtectionDomain cpd = client.allocateProtectionDomain();
            final CompletionQueue ccq = client.createCompletionQueue(64);
            final QueuePair cqp = cpd.createQueuePair(new QueuePairConfig(ccq).sendDepth(4).recvDepth(4));
            final CompletableFuture<byte[]> connecting = CompletableFuture.supplyAsync(() ->
                client.connectionManager().connect(cqp, listener.endpoint(), new byte[0], Duration.ofSeconds(60)));
            final ConnectionRequest request = listener.accept(Duration.ofSeconds(30));
            final List<Path> files = listOwn(dir);
            action.run(files);
            request.accept(spd.createQueuePair(new QueuePairConfig(scq).sendDepth(4).recvDepth(4)), new byte[0]);
            connecting.get(30, TimeUnit.SECONDS);
            return files;
        }
    }

    private static void assertKinds(final List<Path> files)
    {
        for (final String kind : List.of(".dev", ".mr", ".listen", ".conn"))
        {
            assertTrue(files.stream().anyMatch(f -> f.toString().endsWith(kind)), "a " + kind + " file in " + files);
        }
    }

    private static Path userDir(final Path dir)
    {
        return dir.resolve("verbs4j-" + uid());
    }

    private static List<Path> listOwn(final Path dir) throws IOException
    {
        try (Stream<Path> s = Files.list(userDir(dir)))
        {
            return s.filter(p -> p.getFileName().toString().startsWith("verbs4j-" + uid() + "-"))
                .filter(p -> !Files.isDirectory(p)).filter(p -> p.getFileName().toString()
                    .contains("-p" + ProcessHandle.current().pid() + "-") || p.toString().endsWith(".listen"))
                .sorted().collect(Collectors.toList());
        }
    }

    private static String describe(final Path f)
    {
        try
        {
            return PosixFilePermissions.toString(Files.getPosixFilePermissions(f)) + " uid " +
                Files.getAttribute(f, "unix:uid");
        }
        catch (final IOException ex)
        {
            return "gone";
        }
    }

    private static long uid()
    {
        try
        {
            return ((Number)Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private static boolean isRoot()
    {
        return 0 == uid() && Files.isExecutable(Path.of("/usr/bin/setpriv"));
    }

    /** A directory like /dev/shm: world-writable with the sticky bit, so only the files' modes protect them. */
    private Path worldWritableDir(final String name) throws IOException
    {
        final Path dir = SystemTests.newShmDir(name);
        cleanup.add(dir);
        try
        {
            new ProcessBuilder("chmod", "1777", dir.toString()).inheritIO().start().waitFor();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        return dir;
    }

    private Path probeSource() throws IOException
    {
        final Path dir = Files.createTempDirectory("verbs4j-probe-");
        cleanup.add(dir);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        final Path source = dir.resolve("Probe.java");
        Files.writeString(source, PROBE);
        Files.setPosixFilePermissions(source, PosixFilePermissions.fromString("rw-r--r--"));
        return source;
    }

    private static List<String> command(final Path probe, final boolean asNobody, final List<String> args)
    {
        final List<String> command = new ArrayList<>();
        if (asNobody)
        {
            command.addAll(List.of("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"));
        }
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of("-XX:-UsePerfData", "-Xshare:off", "-XX:TieredStopAtLevel=1", probe.toString()));
        command.addAll(args);
        return command;
    }

    private static List<String> runProbe(final Path probe, final boolean asNobody, final List<String> files)
    {
        try
        {
            final Process p = new ProcessBuilder(command(probe, asNobody, files)).redirectErrorStream(true)
                .directory(probe.getParent().toFile()).start();
            final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "probe finished");
            final List<String> lines = out.lines().filter(l -> l.startsWith("OPENED") || l.startsWith("DENIED"))
                .collect(Collectors.toList());
            if (lines.isEmpty())
            {
                throw new IllegalStateException("the probe printed nothing useful: " + out);
            }
            return lines;
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }
}

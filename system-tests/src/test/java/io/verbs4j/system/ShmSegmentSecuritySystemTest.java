package io.verbs4j.system;

import java.io.IOException;
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
import io.verbs4j.config.DeviceContext;
import io.verbs4j.shm.protocol.SegmentHeader;
import io.verbs4j.system.support.SystemTests;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * shm segments are private to their user: every file the shm provider creates (device segment, region, listener,
 * connection segment during a handshake) is mode 0600 and owned by this user, in the configured directory and in
 * the default /dev/shm; a process of another user ({@code nobody}, through {@code setpriv}; needs root, skipped
 * otherwise) can neither read nor map nor write any of them, even in a world-writable sticky directory like
 * /dev/shm; and it cannot impersonate a listener by planting a listener file under this user's name (a connector
 * would hand it the private data of the handshake, i.e. rkeys and addresses).
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
        "      Files.write(p, b, StandardOpenOption.CREATE_NEW);",
        "      Files.setPosixFilePermissions(p, " +
            "java.nio.file.attribute.PosixFilePermissions.fromString(\"rw-rw-rw-\"));",
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
        try (Device device = Verbs.open("shm", new DeviceContext()))
        {
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
    void anotherUserCannotImpersonateAListener() throws Exception
    {
        assumeTrue(isRoot(), "needs root to run a probe as another user (setpriv --reuid=nobody); skipped");
        final Path dir = worldWritableDir("squat");
        final Path probe = probeSource();
        final String name = "squat-" + ProcessHandle.current().pid();
        // A genuine listener file's bytes, to be planted by nobody under this user's name in the shared directory.
        final byte[] genuine;
        final Path scratch = SystemTests.newShmDir("squat-scratch");
        cleanup.add(scratch);
        try (Device device = Verbs.open("shm", SystemTests.context("shm", scratch));
            Listener ignored = device.connectionManager().listen("shm://" + name))
        {
            genuine = Files.readAllBytes(listOwn(scratch).stream().filter(p -> p.toString().endsWith(".listen"))
                .findFirst().orElseThrow());
        }
        final Path planted = dir.resolve("verbs4j-" + uid() + "-" + name + ".listen");
        final Path copy = probe.resolveSibling("listener.bin");
        Files.write(copy, genuine);
        Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("rw-r--r--"));
        final Process squatter = new ProcessBuilder(command(probe, true, List.of("plant", planted.toString(),
            copy.toString(), Integer.toString(SegmentHeader.PID_OFFSET),
            Integer.toString(SegmentHeader.START_TIME_OFFSET), "20000"))).redirectErrorStream(true).start();
        try
        {
            final String line = new String(squatter.getInputStream().readNBytes(8), StandardCharsets.UTF_8);
            assertEquals("PLANTED ", line, "the squatter planted its file");
            assertEquals(65534L, ((Number)Files.getAttribute(planted, "unix:uid")).longValue(), "owned by nobody");
            final byte[] secret = "rkey=0x5EC12E7 addr=0xDEADBEEF".getBytes(StandardCharsets.US_ASCII);
            boolean refused = false;
            String message = "";
            try (Device device = Verbs.open("shm", SystemTests.context("shm", dir)))
            {
                final ProtectionDomain pd = device.allocateProtectionDomain();
                final CompletionQueue cq = device.createCompletionQueue(64);
                final QueuePair qp = pd.createQueuePair(new QueuePairConfig(cq).sendDepth(4).recvDepth(4));
                device.connectionManager().connect(qp, "shm://" + name, secret, Duration.ofSeconds(2));
            }
            catch (final ConnectionException ex)
            {
                refused = true;
                message = ex.getMessage();
            }
            assertTrue(refused, "connected to a listener planted by another user");
            final String content = new String(Files.readAllBytes(planted), StandardCharsets.ISO_8859_1);
            assertFalse(content.contains(new String(secret, StandardCharsets.ISO_8859_1)),
                "the handshake's private data leaked into a file of another user (" + message + ")");
            SystemTests.report("security.txt", "planted listener of another user: connect refused (" + message +
                "), private data not written");
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

    private static List<Path> listOwn(final Path dir) throws IOException
    {
        try (Stream<Path> s = Files.list(dir))
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

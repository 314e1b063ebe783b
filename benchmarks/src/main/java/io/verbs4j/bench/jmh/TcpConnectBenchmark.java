// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.jmh;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.verbs4j.CompletionQueue;
import io.verbs4j.ConnectionRequest;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.QpState;
import io.verbs4j.QueuePair;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.config.ClusterSecret;
import io.verbs4j.config.DeviceContext;
import io.verbs4j.launch.JvmFlags;
import io.verbs4j.tcp.TcpConfiguration;
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

/**
 * Connection set-up time over tcp in one JVM (loopback), by admission mode: {@code plain}, {@code secret} (the
 * cluster-secret challenge-response before the handshake), {@code tls} (a TLS handshake with mutual certificate
 * authentication: self-signed EC P-256 PKCS12 stores made with the JDK's {@code keytool}) and {@code secret+tls}.
 * One invocation is a {@code connect()} that returns when the listener's CONNECT_ACCEPT arrives (a server thread
 * accepts each request at once); queue pairs are created and closed outside the timed part.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {
    JvmFlags.IGNORE_UNRECOGNIZED, JvmFlags.ADD_EXPORTS_MISC, JvmFlags.ENABLE_NATIVE_ACCESS,
    JvmFlags.UNSAFE_MEMORY_ACCESS })
public class TcpConnectBenchmark
{
    private static final String PASSWORD = "verbs4j-bench";

    /** Admission mode: {@code plain}, {@code secret}, {@code tls} or {@code secret+tls}. */
    @Param({ "plain", "secret", "tls", "secret+tls" })
    public String admission;

    private Path dir;
    private DevicePair pair;
    private QueuePair clientQp;
    private Thread acceptor;
    private volatile boolean running = true;
    private volatile Throwable failure;

    /**
     * Creates the secret file and key stores the mode needs, opens both devices, starts the accepting thread.
     *
     * @throws IOException if the files cannot be made.
     */
    @Setup(Level.Trial)
    public void setUp() throws IOException
    {
        dir = Files.createTempDirectory("verbs4j-connect-bench");
        final DeviceContext server = context();
        final DeviceContext client = context();
        pair = new DevicePair("tcp", server, client, 64);
        acceptor = new Thread(this::acceptLoop, "connect-bench-acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Creates the client queue pair of the next invocation. */
    @Setup(Level.Invocation)
    public void newQueuePair()
    {
        clientQp = pair.clientPd.createQueuePair(new QueuePairConfig(pair.clientCq).sendDepth(4).recvDepth(4));
        clientQp.modify(QpState.INIT);
    }

    /**
     * One connection set-up.
     *
     * @return the listener's private data.
     */
    @Benchmark
    public byte[] connect()
    {
        return pair.client.connectionManager().connect(clientQp, pair.listener.endpoint(), new byte[8],
            DevicePair.CONNECT_TIMEOUT);
    }

    /** Closes the invocation's queue pair (its peer is closed by the accepting thread). */
    @TearDown(Level.Invocation)
    public void closeQueuePair()
    {
        clientQp.close();
    }

    /**
     * Stops the accepting thread, closes the devices, deletes the files.
     *
     * @throws Exception if the accepting thread failed.
     */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception
    {
        running = false;
        acceptor.join(10_000);
        pair.close();
        try (Stream<Path> files = Files.walk(dir))
        {
            files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        }
        if (null != failure)
        {
            throw new IllegalStateException(failure);
        }
    }

    private void acceptLoop()
    {
        final ProtectionDomain pd = pair.server.allocateProtectionDomain();
        final CompletionQueue cq = pair.server.createCompletionQueue(64);
        QueuePair previous = null;
        try
        {
            while (running)
            {
                final ConnectionRequest request = pair.listener.accept(Duration.ofMillis(100));
                if (null == request)
                {
                    continue;
                }
                final QueuePair qp = pd.createQueuePair(new QueuePairConfig(cq).sendDepth(4).recvDepth(4));
                qp.modify(QpState.INIT);
                request.accept(qp, new byte[8]);
                if (null != previous)
                {
                    previous.close();
                }
                previous = qp;
            }
        }
        catch (final Throwable ex)
        {
            failure = ex;
        }
        finally
        {
            if (null != previous)
            {
                previous.close();
            }
        }
    }

    private DeviceContext context() throws IOException
    {
        final DeviceContext context = new DeviceContext();
        if (admission.contains("secret"))
        {
            final Path secret = dir.resolve("secret");
            if (!Files.exists(secret))
            {
                Files.createFile(secret, PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rw-------")));
                Files.write(secret, "benchmark-cluster-secret-0123456789".getBytes(StandardCharsets.UTF_8));
            }
            context.property(ClusterSecret.FILE_PROP_NAME, secret.toString());
        }
        if (admission.contains("tls"))
        {
            final Path keyStore = dir.resolve("peer.p12");
            final Path trustStore = dir.resolve("trust.p12");
            if (!Files.exists(keyStore))
            {
                makeStores(keyStore, trustStore);
            }
            context.property(TcpConfiguration.TLS_PROP_NAME, "true")
                .property(TcpConfiguration.TLS_KEYSTORE_PROP_NAME, keyStore.toString())
                .property(TcpConfiguration.TLS_KEYSTORE_PASSWORD_PROP_NAME, PASSWORD)
                .property(TcpConfiguration.TLS_TRUSTSTORE_PROP_NAME, trustStore.toString())
                .property(TcpConfiguration.TLS_TRUSTSTORE_PASSWORD_PROP_NAME, PASSWORD);
        }
        return context;
    }

    /** A self-signed EC P-256 identity and a trust store holding its certificate, made with keytool. */
    static void makeStores(final Path keyStore, final Path trustStore) throws IOException
    {
        final Path cert = keyStore.resolveSibling("peer.cer");
        keytool("-genkeypair", "-alias", "peer", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
            "-dname", "CN=verbs4j-bench", "-storetype", "PKCS12", "-keystore", keyStore.toString(),
            "-storepass", PASSWORD, "-keypass", PASSWORD);
        keytool("-exportcert", "-alias", "peer", "-keystore", keyStore.toString(), "-storepass", PASSWORD,
            "-file", cert.toString());
        keytool("-importcert", "-noprompt", "-alias", "peer", "-file", cert.toString(), "-storetype", "PKCS12",
            "-keystore", trustStore.toString(), "-storepass", PASSWORD);
    }

    private static void keytool(final String... args) throws IOException
    {
        final List<String> command = new ArrayList<>();
        command.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "keytool");
        command.addAll(List.of(args));
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try
        {
            final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(60, TimeUnit.SECONDS) || 0 != process.exitValue())
            {
                throw new IOException("keytool failed: " + output);
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running keytool", ex);
        }
    }
}

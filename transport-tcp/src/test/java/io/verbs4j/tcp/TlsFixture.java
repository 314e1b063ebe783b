// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Self-signed PKCS12 key stores made with the JDK's {@code keytool} in a temporary directory: a "trusted" identity
 * (its certificate is in the trust store) and an "untrusted" one (it is not). {@link #close()} deletes them.
 */
public final class TlsFixture implements AutoCloseable
{
    /** Password of every store. */
    public static final String PASSWORD = "changeit-verbs4j";

    private final Path dir;
    private final Path trusted;
    private final Path untrusted;
    private final Path trustStore;

    /**
     * Creates the stores.
     *
     * @throws IllegalStateException if keytool fails.
     */
    public TlsFixture()
    {
        try
        {
            dir = Files.createTempDirectory("verbs4j-tls");
            trusted = dir.resolve("trusted.p12");
            untrusted = dir.resolve("untrusted.p12");
            trustStore = dir.resolve("truststore.p12");
            final Path cert = dir.resolve("trusted.cer");
            keytool("-genkeypair", "-alias", "peer", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
                "-dname", "CN=verbs4j-test", "-storetype", "PKCS12", "-keystore", trusted.toString(),
                "-storepass", PASSWORD, "-keypass", PASSWORD);
            keytool("-genkeypair", "-alias", "intruder", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
                "-dname", "CN=verbs4j-intruder", "-storetype", "PKCS12", "-keystore", untrusted.toString(),
                "-storepass", PASSWORD, "-keypass", PASSWORD);
            keytool("-exportcert", "-alias", "peer", "-keystore", trusted.toString(), "-storepass", PASSWORD,
                "-file", cert.toString());
            keytool("-importcert", "-noprompt", "-alias", "peer", "-file", cert.toString(), "-storetype", "PKCS12",
                "-keystore", trustStore.toString(), "-storepass", PASSWORD);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /** @return device properties for TLS with the trusted identity. */
    public Map<String, String> properties()
    {
        return properties(trusted);
    }

    /** @return device properties for TLS with an identity the trust store does not know. */
    public Map<String, String> untrustedProperties()
    {
        return properties(untrusted);
    }

    private Map<String, String> properties(final Path keyStore)
    {
        return Map.of(
            TcpConfiguration.TLS_PROP_NAME, "true",
            TcpConfiguration.TLS_KEYSTORE_PROP_NAME, keyStore.toString(),
            TcpConfiguration.TLS_KEYSTORE_PASSWORD_PROP_NAME, PASSWORD,
            TcpConfiguration.TLS_TRUSTSTORE_PROP_NAME, trustStore.toString(),
            TcpConfiguration.TLS_TRUSTSTORE_PASSWORD_PROP_NAME, PASSWORD);
    }

    /** Deletes the stores. */
    public void close()
    {
        try (Stream<Path> files = Files.walk(dir))
        {
            files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private static void keytool(final String... args) throws IOException
    {
        final List<String> command = new ArrayList<>();
        command.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "keytool");
        command.addAll(List.of(args));
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try
        {
            final String output = new String(process.getInputStream().readAllBytes());
            if (!process.waitFor(60, TimeUnit.SECONDS) || 0 != process.exitValue())
            {
                throw new IllegalStateException("keytool " + String.join(" ", args) + " failed: " + output);
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }
}

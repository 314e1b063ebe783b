// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.Objects;
import java.util.Set;
import java.util.function.UnaryOperator;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The cluster secret: a shared key that every process of a job knows and proves with a challenge-response
 * ({@link io.verbs4j.spi.ChallengeResponse}) before a TCP connection or a rendezvous-store connection is admitted.
 * It is never sent, logged or exposed: this class hands out only initialised HMAC-SHA256 instances.
 * <p>
 * Where it comes from, first match wins:
 * <ol>
 *     <li>{@value #FILE_PROP_NAME}: a file, named per device ({@code DeviceContext.property}) or as a system
 *     property;</li>
 *     <li>environment {@value #FILE_ENV_NAME}: a file;</li>
 *     <li>environment {@value #SECRET_ENV_NAME}: the secret itself (UTF-8).</li>
 * </ol>
 * Setting both environment variables is an error (which one was meant is unclear). There is no property for the
 * secret itself, so that it never appears on a command line. A file must be readable by its owner only (as ssh
 * insists for private keys): a file that group or others may read or write is refused. Trailing white space (the
 * newline of {@code echo secret > file}) is ignored; the rest, at least {@value #MIN_LENGTH} bytes, is the key.
 * With none of the three set, no secret is configured and connections are not authenticated.
 */
public final class ClusterSecret
{
    /** Property (per device, else system) naming the secret file. */
    public static final String FILE_PROP_NAME = "verbs4j.tcp.secret.file";
    /** Environment variable naming the secret file. */
    public static final String FILE_ENV_NAME = "VERBS4J_SECRET_FILE";
    /** Environment variable holding the secret itself. */
    public static final String SECRET_ENV_NAME = "VERBS4J_SECRET";
    /** Shortest accepted secret, in bytes. */
    public static final int MIN_LENGTH = 16;
    /** The MAC algorithm keyed by the secret. */
    public static final String MAC_ALGORITHM = "HmacSHA256";

    private static final ClusterSecret NONE = new ClusterSecret(null, "none");

    private final byte[] key;
    private final String source;

    private ClusterSecret(final byte[] key, final String source)
    {
        this.key = key;
        this.source = source;
    }

    /**
     * The secret for a device: {@value #FILE_PROP_NAME} from the context (then the system properties), then the
     * environment.
     *
     * @param context the device's context.
     * @return the secret, or one that {@link #isConfigured() is not configured}.
     * @throws IllegalArgumentException if a configured secret cannot be used (missing or unprotected file, too
     *                                  short, ambiguous environment).
     */
    public static ClusterSecret of(final DeviceContext context)
    {
        Objects.requireNonNull(context, "context");
        return resolve(name -> context.get(name, null), System::getenv);
    }

    /**
     * The secret from the system properties and the environment (for code without a device, such as the
     * rendezvous store).
     *
     * @return the secret, or one that {@link #isConfigured() is not configured}.
     * @throws IllegalArgumentException if a configured secret cannot be used.
     */
    public static ClusterSecret fromSystem()
    {
        return resolve(System::getProperty, System::getenv);
    }

    /**
     * The secret from the given property and environment look-ups (the precedence described above).
     *
     * @param properties property look-up, null when absent.
     * @param environment environment look-up, null when absent.
     * @return the secret, or one that {@link #isConfigured() is not configured}.
     * @throws IllegalArgumentException if a configured secret cannot be used.
     */
    public static ClusterSecret resolve(final UnaryOperator<String> properties, final UnaryOperator<String> environment)
    {
        Objects.requireNonNull(properties, "properties");
        Objects.requireNonNull(environment, "environment");
        final String propertyFile = blankToNull(properties.apply(FILE_PROP_NAME));
        if (null != propertyFile)
        {
            return fromFile(Paths.get(propertyFile), FILE_PROP_NAME);
        }
        final String envFile = blankToNull(environment.apply(FILE_ENV_NAME));
        final String envSecret = environment.apply(SECRET_ENV_NAME);
        if (null != envFile && null != envSecret)
        {
            throw new IllegalArgumentException("both " + FILE_ENV_NAME + " and " + SECRET_ENV_NAME +
                " are set; set only one of them (or " + FILE_PROP_NAME + ", which takes precedence)");
        }
        if (null != envFile)
        {
            return fromFile(Paths.get(envFile), FILE_ENV_NAME);
        }
        if (null != envSecret)
        {
            return fromBytes(envSecret.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                "environment " + SECRET_ENV_NAME);
        }
        return NONE;
    }

    /**
     * Reads a secret file, refusing one that group or others may read or write.
     *
     * @param file   the file.
     * @param origin what named it (for messages).
     * @return the secret.
     * @throws IllegalArgumentException if the file is missing, unreadable, unprotected or too short.
     */
    public static ClusterSecret fromFile(final Path file, final String origin)
    {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(origin, "origin");
        final byte[] content;
        try
        {
            final PosixFileAttributeView posix = Files.getFileAttributeView(file, PosixFileAttributeView.class);
            if (null != posix)
            {
                final Set<PosixFilePermission> permissions = posix.readAttributes().permissions();
                if (permissions.contains(PosixFilePermission.GROUP_READ) ||
                    permissions.contains(PosixFilePermission.GROUP_WRITE) ||
                    permissions.contains(PosixFilePermission.OTHERS_READ) ||
                    permissions.contains(PosixFilePermission.OTHERS_WRITE))
                {
                    throw new IllegalArgumentException("cluster secret file " + file + " (from " + origin +
                        ") has permissions " + PosixFilePermissions.toString(permissions) +
                        ", which are too open: it must be readable by its owner only (chmod 600 " + file + ")");
                }
            }
            content = Files.readAllBytes(file);
        }
        catch (final IOException ex)
        {
            throw new IllegalArgumentException("cannot read the cluster secret file " + file + " (from " + origin +
                "): " + ex, ex);
        }
        try
        {
            return fromBytes(content, "file " + file);
        }
        finally
        {
            Arrays.fill(content, (byte)0);
        }
    }

    /**
     * A secret given as bytes (embedding applications and tests); trailing white space is ignored.
     *
     * @param secret the secret, at least {@value #MIN_LENGTH} bytes once trailing white space is removed; copied.
     * @param source a description for log lines (never the secret).
     * @return the secret.
     * @throws IllegalArgumentException if too short.
     */
    public static ClusterSecret fromBytes(final byte[] secret, final String source)
    {
        Objects.requireNonNull(secret, "secret");
        Objects.requireNonNull(source, "source");
        int length = secret.length;
        while (length > 0 && isWhiteSpace(secret[length - 1]))
        {
            length--;
        }
        if (length < MIN_LENGTH)
        {
            throw new IllegalArgumentException("the cluster secret from " + source + " has " + length +
                " bytes; at least " + MIN_LENGTH + " are needed (for example: head -c 32 /dev/urandom | base64)");
        }
        return new ClusterSecret(Arrays.copyOf(secret, length), source);
    }

    /** @return a secret that is not configured (no authentication). */
    public static ClusterSecret none()
    {
        return NONE;
    }

    /** @return true if a secret is configured, so connections must authenticate. */
    public boolean isConfigured()
    {
        return null != key;
    }

    /** @return where the secret came from ({@code file /path}, {@code environment VERBS4J_SECRET}, {@code none}). */
    public String source()
    {
        return source;
    }

    /**
     * @return a new HMAC-SHA256 keyed with the secret (not thread-safe; one per user).
     * @throws IllegalStateException if no secret is configured.
     */
    public Mac newMac()
    {
        if (null == key)
        {
            throw new IllegalStateException("no cluster secret is configured");
        }
        try
        {
            final Mac mac = Mac.getInstance(MAC_ALGORITHM);
            mac.init(new SecretKeySpec(key, MAC_ALGORITHM));
            return mac;
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException(MAC_ALGORITHM + " is not available: " + ex, ex);
        }
    }

    /** {@inheritDoc} */
    public String toString()
    {
        return "ClusterSecret{" + source + "}";
    }

    private static boolean isWhiteSpace(final byte b)
    {
        return '\n' == b || '\r' == b || ' ' == b || '\t' == b;
    }

    private static String blankToNull(final String value)
    {
        return null == value || value.isBlank() ? null : value.trim();
    }
}

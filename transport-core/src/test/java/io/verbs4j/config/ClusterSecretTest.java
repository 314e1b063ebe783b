// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.config;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ClusterSecretTest
{
    private static final String SECRET = "0123456789abcdef-cluster";

    @TempDir
    Path dir;

    @Test
    void shouldBeUnconfiguredWhenNothingIsSet()
    {
        final ClusterSecret secret = ClusterSecret.resolve(name -> null, name -> null);
        assertFalse(secret.isConfigured());
        assertThrows(IllegalStateException.class, secret::newMac);
    }

    @Test
    void shouldReadAnOwnerOnlyFileAndIgnoreTheTrailingNewline() throws Exception
    {
        final Path file = secretFile(SECRET + "\n", "rw-------");
        final ClusterSecret fromFile = ClusterSecret.resolve(Map.of(ClusterSecret.FILE_PROP_NAME, file.toString())::get,
            name -> null);
        final ClusterSecret fromEnv = ClusterSecret.resolve(name -> null,
            Map.of(ClusterSecret.SECRET_ENV_NAME, SECRET)::get);
        assertTrue(fromFile.isConfigured());
        assertTrue(fromFile.source().contains(file.toString()));
        assertArrayEquals(mac(fromEnv), mac(fromFile));
    }

    @Test
    void shouldRefuseAFileThatGroupOrOthersCanRead() throws Exception
    {
        final Path file = secretFile(SECRET, "rw-r--r--");
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> ClusterSecret.resolve(name -> null, Map.of(ClusterSecret.FILE_ENV_NAME, file.toString())::get));
        assertTrue(ex.getMessage().contains("too open"), ex.getMessage());
        assertTrue(ex.getMessage().contains("chmod 600"), ex.getMessage());
        assertFalse(ex.getMessage().contains(SECRET), "the message must not show the secret");
    }

    @Test
    void shouldRefuseAMissingFileAShortSecretAndBothVariables() throws Exception
    {
        final Path missing = dir.resolve("missing");
        assertThrows(IllegalArgumentException.class,
            () -> ClusterSecret.resolve(Map.of(ClusterSecret.FILE_PROP_NAME, missing.toString())::get, name -> null));
        final IllegalArgumentException shortSecret = assertThrows(IllegalArgumentException.class,
            () -> ClusterSecret.resolve(name -> null, Map.of(ClusterSecret.SECRET_ENV_NAME, "short\n")::get));
        assertTrue(shortSecret.getMessage().contains("at least " + ClusterSecret.MIN_LENGTH));
        final Path file = secretFile(SECRET, "rw-------");
        assertThrows(IllegalArgumentException.class, () -> ClusterSecret.resolve(name -> null,
            Map.of(ClusterSecret.SECRET_ENV_NAME, SECRET, ClusterSecret.FILE_ENV_NAME, file.toString())::get));
    }

    @Test
    void shouldPreferThePropertyFileOverTheEnvironment() throws Exception
    {
        final Path file = secretFile("another-secret-of-enough-length", "r--------");
        final ClusterSecret secret = ClusterSecret.resolve(Map.of(ClusterSecret.FILE_PROP_NAME, file.toString())::get,
            Map.of(ClusterSecret.SECRET_ENV_NAME, SECRET)::get);
        assertTrue(secret.source().startsWith("file "));
        final ClusterSecret env = ClusterSecret.resolve(name -> null,
            Map.of(ClusterSecret.SECRET_ENV_NAME, SECRET)::get);
        assertEquals("environment " + ClusterSecret.SECRET_ENV_NAME, env.source());
        assertFalse(java.util.Arrays.equals(mac(secret), mac(env)));
    }

    private Path secretFile(final String content, final String permissions) throws Exception
    {
        final Path file = Files.createTempFile(dir, "secret", "");
        Files.write(file, content.getBytes(StandardCharsets.UTF_8));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(permissions));
        return file;
    }

    private static byte[] mac(final ClusterSecret secret)
    {
        return secret.newMac().doFinal(new byte[] {1, 2, 3});
    }
}

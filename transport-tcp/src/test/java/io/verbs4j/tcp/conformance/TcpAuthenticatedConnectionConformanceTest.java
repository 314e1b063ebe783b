// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp.conformance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

import io.verbs4j.config.ClusterSecret;
import io.verbs4j.conformance.AbstractConnectionConformanceTest;
import org.junit.jupiter.api.AfterAll;

/**
 * The Connection conformance suite over tcp with a cluster secret on both sides (the peer, in a separate JVM, reads
 * the same owner-only secret file): every connection authenticates before its handshake.
 */
class TcpAuthenticatedConnectionConformanceTest extends AbstractConnectionConformanceTest
{
    private static Path secretFile;

    @Override
    protected String providerName()
    {
        return "tcp";
    }

    @Override
    protected Map<String, String> deviceProperties()
    {
        synchronized (TcpAuthenticatedConnectionConformanceTest.class)
        {
            if (null == secretFile)
            {
                try
                {
                    secretFile = Files.createTempFile("verbs4j-secret", "",
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
                    Files.write(secretFile, "conformance-cluster-secret-0123456789\n".getBytes(StandardCharsets.UTF_8));
                }
                catch (final IOException ex)
                {
                    throw new UncheckedIOException(ex);
                }
            }
            return Map.of(ClusterSecret.FILE_PROP_NAME, secretFile.toString());
        }
    }

    @AfterAll
    static void deleteSecret() throws IOException
    {
        synchronized (TcpAuthenticatedConnectionConformanceTest.class)
        {
            if (null != secretFile)
            {
                Files.delete(secretFile);
                secretFile = null;
            }
        }
    }
}

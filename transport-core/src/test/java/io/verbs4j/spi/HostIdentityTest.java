// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class HostIdentityTest
{
    @Test
    void shouldCombineBootIdAndNetworkNamespace(@TempDir final Path dir) throws IOException
    {
        final Path bootId = Files.writeString(dir.resolve("boot_id"), "0b1c2d3e-aaaa\n");
        final Path netA = Files.createSymbolicLink(dir.resolve("netA"), Path.of("net:[4026531840]"));
        final Path netB = Files.createSymbolicLink(dir.resolve("netB"), Path.of("net:[4026532999]"));
        assertEquals("0b1c2d3e-aaaa/net:[4026531840]", HostIdentity.compute(bootId, netA));
        assertEquals("0b1c2d3e-aaaa/net:[4026532999]", HostIdentity.compute(bootId, netB));
    }

    @Test
    void shouldFallBackToTheMachineWhenTheNamespaceIsUnreadable(@TempDir final Path dir) throws IOException
    {
        final Path bootId = Files.writeString(dir.resolve("boot_id"), "0b1c2d3e-aaaa\n");
        assertEquals("0b1c2d3e-aaaa", HostIdentity.compute(bootId, dir.resolve("missing")));
    }

    @Test
    void shouldNameThisProcessesNetworkNamespaceOnLinux() throws IOException
    {
        final Path link = Path.of("/proc/self/ns/net");
        assumeTrue(Files.exists(link), "no /proc/self/ns/net (not Linux)");
        assumeTrue(null == System.getProperty(HostIdentity.HOST_ID_PROP_NAME) &&
            null == System.getenv(HostIdentity.HOST_ID_ENV_NAME), "host id overridden in this JVM");
        assertTrue(HostIdentity.hostId().endsWith("/" + Files.readSymbolicLink(link)), HostIdentity.hostId());
    }

    @Test
    void shouldPreferTheSystemProperty()
    {
        final String before = System.getProperty(HostIdentity.HOST_ID_PROP_NAME);
        System.setProperty(HostIdentity.HOST_ID_PROP_NAME, "test-host-7");
        try
        {
            assertEquals("test-host-7", HostIdentity.hostId());
        }
        finally
        {
            if (null == before)
            {
                System.clearProperty(HostIdentity.HOST_ID_PROP_NAME);
            }
            else
            {
                System.setProperty(HostIdentity.HOST_ID_PROP_NAME, before);
            }
        }
    }
}

package io.verbs4j.spi;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Identifies the machine (and kernel boot) a process runs on, so that peers can tell whether they share memory.
 * Two processes in different network namespaces of one machine still share /dev/shm, so the id is the kernel's boot
 * id plus, when set, the {@code verbs4j.host.id} system property (tests use it to pretend to be separate hosts).
 */
public final class HostIdentity
{
    /** System property overriding the host id. */
    public static final String HOST_ID_PROP_NAME = "verbs4j.host.id";

    private static final String HOST_ID = compute();

    private HostIdentity()
    {
    }

    /** @return this process's host id. */
    public static String hostId()
    {
        final String override = System.getProperty(HOST_ID_PROP_NAME);
        return null != override ? override : HOST_ID;
    }

    private static String compute()
    {
        try
        {
            final Path bootId = Path.of("/proc/sys/kernel/random/boot_id");
            if (Files.isReadable(bootId))
            {
                return Files.readString(bootId, StandardCharsets.US_ASCII).trim();
            }
            return InetAddress.getLocalHost().getHostName();
        }
        catch (final IOException ex)
        {
            return "unknown-host";
        }
    }
}

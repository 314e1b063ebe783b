package io.verbs4j.shm;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import io.verbs4j.shm.protocol.SegmentHeader;

/**
 * Names of the segment files and the sweep of files left by dead processes. Every file is
 * {@code <dir>/verbs4j-<uid>-...}: per user, so users never see each other's files (they are 0600 too), and
 * {@code p<pid>-d<deviceId>-...} for everything a device owns, so that a sweep can tell from the name alone whose it
 * is. Listener files are {@code verbs4j-<uid>-<name>.listen} (a well-known name); their owner PID is in the header.
 */
public final class ShmFiles
{
    private static final long UID = uid();

    private final Path dir;
    private final String prefix;

    /**
     * @param dir the segment directory.
     */
    public ShmFiles(final Path dir)
    {
        this.dir = dir;
        this.prefix = "verbs4j-" + UID + "-";
    }

    /** @return the directory. */
    public Path dir()
    {
        return dir;
    }

    /** @return the prefix of every file of this user. */
    public String prefix()
    {
        return prefix;
    }

    /**
     * @param pid      owner process.
     * @param deviceId owner device.
     * @return the device segment file.
     */
    public Path deviceSegment(final long pid, final long deviceId)
    {
        return dir.resolve(owner(pid, deviceId) + ".dev");
    }

    /**
     * @param pid      owner process.
     * @param deviceId owner device.
     * @param fileId   the region's file id.
     * @return the region file.
     */
    public Path region(final long pid, final long deviceId, final long fileId)
    {
        return dir.resolve(owner(pid, deviceId) + "-r" + Long.toHexString(fileId) + ".mr");
    }

    /**
     * @param pid          connector process.
     * @param deviceId     connector device.
     * @param connectionId connection id.
     * @return the connection segment file.
     */
    public Path connection(final long pid, final long deviceId, final long connectionId)
    {
        return dir.resolve(owner(pid, deviceId) + "-c" + Long.toHexString(connectionId) + ".conn");
    }

    /**
     * @param name listener name (from {@code shm://name}).
     * @return the listener file.
     */
    public Path listener(final String name)
    {
        return dir.resolve(prefix + name + ".listen");
    }

    /**
     * Deletes every file of this user whose owner process is dead. Never throws.
     *
     * @return how many files were deleted.
     */
    public int sweepDead()
    {
        return sweep(-1);
    }

    /**
     * Deletes every file of this user owned by {@code pid} (which must be dead). Never throws.
     *
     * @param pid the dead process.
     * @return how many files were deleted.
     */
    public int sweepPid(final long pid)
    {
        return sweep(pid);
    }

    private int sweep(final long onlyPid)
    {
        int deleted = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, prefix + "*"))
        {
            for (final Path file : files)
            {
                final long pid = ownerPid(file);
                if (pid > 0 && (onlyPid < 0 ? !isAlive(pid) : pid == onlyPid))
                {
                    if (Files.deleteIfExists(file))
                    {
                        deleted++;
                    }
                }
            }
        }
        catch (final IOException | RuntimeException ignore)
        {
            // Best effort: the directory may vanish or a file be deleted concurrently by its owner.
        }
        return deleted;
    }

    /**
     * @param pid a process id.
     * @return true if the process exists.
     */
    public static boolean isAlive(final long pid)
    {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    /**
     * @param file a file of this user.
     * @return its owner's pid, or -1 if unknown.
     */
    long ownerPid(final Path file)
    {
        final String name = file.getFileName().toString();
        if (name.endsWith(".listen"))
        {
            return listenerPid(file);
        }
        final String rest = name.substring(prefix.length());
        if (rest.startsWith("p"))
        {
            final int dash = rest.indexOf('-');
            if (dash > 1)
            {
                try
                {
                    return Long.parseLong(rest.substring(1, dash));
                }
                catch (final NumberFormatException ignore)
                {
                    return -1;
                }
            }
        }
        return -1;
    }

    private static long listenerPid(final Path file)
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
        {
            final ByteBuffer header = ByteBuffer.allocate(SegmentHeader.LENGTH).order(ByteOrder.nativeOrder());
            if (channel.read(header, 0) < SegmentHeader.LENGTH)
            {
                return -1;
            }
            return header.getLong(SegmentHeader.PID_OFFSET);
        }
        catch (final IOException ex)
        {
            return -1;
        }
    }

    private String owner(final long pid, final long deviceId)
    {
        return prefix + "p" + pid + "-d" + Long.toHexString(deviceId);
    }

    private static long uid()
    {
        try
        {
            return ((Number)Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue();
        }
        catch (final IOException | RuntimeException ex)
        {
            return System.getProperty("user.name", "user").hashCode() & 0x7FFFFFFFL;
        }
    }
}

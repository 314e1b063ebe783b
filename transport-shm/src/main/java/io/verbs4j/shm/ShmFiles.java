// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

import io.verbs4j.VerbsException;

import io.verbs4j.shm.protocol.SegmentHeader;

/**
 * Names of the segment files and the sweep of files left by dead processes. Every file lives in a per-user
 * directory {@code <dir>/verbs4j-<uid>/}, created 0700 and refused unless it is a real directory owned by this user
 * with no group or other permission: another user can neither map the files (they are 0600 too) nor squat a
 * listener's well-known name inside it. File names are {@code verbs4j-<uid>-...} and
 * {@code p<pid>-d<deviceId>-...} for everything a device owns, so that a sweep can tell from the name alone whose it
 * is. Listener files are {@code verbs4j-<uid>-<name>.listen} (a well-known name); their owner PID is in the header.
 * <p>
 * An owner is alive when its PID exists <em>and</em> that process started when the segment header says its owner
 * did ({@link SegmentHeader#START_TIME_OFFSET}): a PID reused by an unrelated process does not keep files or peers
 * alive.
 */
public final class ShmFiles
{
    private static final long UID = uid();

    private final Path dir;
    private final String prefix;

    /**
     * Opens (creating it if needed) this user's directory under {@code baseDir}.
     *
     * @param baseDir the configured segment directory ({@link ShmConfiguration#DIR_PROP_NAME}).
     * @throws VerbsException if the user directory cannot be created, or exists but is not a directory owned by
     *                        this user with mode 0700 (saying what to do).
     */
    public ShmFiles(final Path baseDir)
    {
        this.dir = privateDirectory(baseDir.resolve("verbs4j-" + UID));
        this.prefix = "verbs4j-" + UID + "-";
    }

    private static Path privateDirectory(final Path dir)
    {
        try
        {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(
                "rwx------")));
        }
        catch (final FileAlreadyExistsException ignore)
        {
            // made earlier, or by another process of this user at the same moment; checked below either way
        }
        catch (final IOException | UnsupportedOperationException ex)
        {
            throw new VerbsException("cannot create the shm directory " + dir + " (" + ex + "); set " +
                ShmConfiguration.DIR_PROP_NAME + " to a writable tmpfs directory", ex);
        }
        final long owner;
        final int mode;
        try
        {
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS))
            {
                throw new VerbsException("shm directory " + dir + " is not a directory (a symbolic link or a file " +
                    "put there by someone else?); remove it, or set " + ShmConfiguration.DIR_PROP_NAME +
                    " to another directory");
            }
            owner = ((Number)Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS)).longValue();
            mode = ((Number)Files.getAttribute(dir, "unix:mode", LinkOption.NOFOLLOW_LINKS)).intValue();
        }
        catch (final IOException | UnsupportedOperationException | IllegalArgumentException ex)
        {
            throw new VerbsException("cannot check the owner of shm directory " + dir + " (" + ex + ")", ex);
        }
        if (owner != UID || 0 != (mode & 0077))
        {
            throw new VerbsException("shm directory " + dir + " belongs to uid " + owner + " with mode " +
                Integer.toOctalString(mode & 0777) + ", but must belong to this user (uid " + UID + ") with mode " +
                "700, else another user could read or squat its segments; remove it, or set " +
                ShmConfiguration.DIR_PROP_NAME + " to another directory");
        }
        return dir;
    }

    /** @return this process's user id (as in the file names). */
    static long currentUid()
    {
        return UID;
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

    /**
     * Deletes the files of one device of a process that has exited, whether or not its parent has reaped it yet (a
     * zombie still reads as alive to {@link #sweepDead()}). The names carry the device's random id, so a process that
     * later gets the same PID is never touched. Never throws.
     *
     * @param pid      the exited process.
     * @param deviceId its device.
     * @return how many files were deleted.
     */
    public int sweepDevice(final long pid, final long deviceId)
    {
        final String owner = owner(pid, deviceId);
        return deleteWhere(dir, owner + "*", file ->
        {
            // not the device whose id starts with this one's digits
            final String name = file.getFileName().toString();
            final char next = name.length() > owner.length() ? name.charAt(owner.length()) : ' ';
            return '-' == next || '.' == next;
        });
    }

    private int sweep(final long onlyPid)
    {
        // The files of versions before the per-user directory lie in the base directory under the same names.
        return sweep(dir, onlyPid) + sweep(dir.getParent(), onlyPid);
    }

    private int sweep(final Path directory, final long onlyPid)
    {
        final Map<String, Boolean> deviceAlive = new HashMap<>();
        return deleteWhere(directory, prefix + "*", file ->
        {
            final long pid = ownerPid(file);
            return pid > 0 && (onlyPid < 0 ? !ownerAlive(file, pid, deviceAlive) : pid == onlyPid);
        });
    }

    /** Deletes the files of {@code directory} matching {@code glob} that {@code doomed} picks. Never throws. */
    private static int deleteWhere(final Path directory, final String glob, final Predicate<Path> doomed)
    {
        int deleted = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, glob))
        {
            for (final Path file : files)
            {
                if (doomed.test(file) && Files.deleteIfExists(file))
                {
                    deleted++;
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
     * @param pid         a process id.
     * @param startTimeMs when the process that owned {@code pid} started (epoch ms), or 0 if unknown.
     * @return true if a process with that id exists and, when both start times are known, started then (a
     *         different start time means the PID was reused by another process).
     */
    public static boolean isAlive(final long pid, final long startTimeMs)
    {
        final Optional<ProcessHandle> handle = ProcessHandle.of(pid);
        if (handle.isEmpty() || !handle.get().isAlive())
        {
            return false;
        }
        if (0 == startTimeMs)
        {
            return true;
        }
        final long actual = startTimeMs(handle.get());
        return 0 == actual || actual == startTimeMs;
    }

    /** @return this process's start time in epoch milliseconds, or 0 if the platform does not tell. */
    public static long currentStartTimeMs()
    {
        return startTimeMs(ProcessHandle.current());
    }

    private static long startTimeMs(final ProcessHandle handle)
    {
        return handle.info().startInstant().map(Instant::toEpochMilli).orElse(0L);
    }

    /**
     * @param file a segment file (device, listener) of this user.
     * @return the owner's start time recorded in its header, or 0 if unknown or not readable.
     */
    static long headerStartTimeMs(final Path file)
    {
        final ByteBuffer header = readHeader(file);
        return null == header || SegmentHeader.READY != header.getInt(SegmentHeader.READY_OFFSET) ? 0 :
            header.getLong(SegmentHeader.START_TIME_OFFSET);
    }

    private boolean ownerAlive(final Path file, final long pid, final Map<String, Boolean> deviceAlive)
    {
        final String name = file.getFileName().toString();
        if (name.endsWith(".listen"))
        {
            return isAlive(pid, headerStartTimeMs(file));
        }
        if (!isAlive(pid))
        {
            return false;
        }
        // p<pid>-d<device>...: the device segment's header says when its owner started.
        final String rest = name.substring(prefix.length());
        final int dash = rest.indexOf('-');
        int end = dash + 1;
        while (end < rest.length() && Character.isLetterOrDigit(rest.charAt(end)))
        {
            end++;
        }
        final String owner = rest.substring(0, end);
        return deviceAlive.computeIfAbsent(owner,
            key -> isAlive(pid, headerStartTimeMs(file.resolveSibling(prefix + key + ".dev"))));
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
        final ByteBuffer header = readHeader(file);
        return null == header ? -1 : header.getLong(SegmentHeader.PID_OFFSET);
    }

    private static ByteBuffer readHeader(final Path file)
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
        {
            final ByteBuffer header = ByteBuffer.allocate(SegmentHeader.LENGTH).order(ByteOrder.nativeOrder());
            if (channel.read(header, 0) < SegmentHeader.LENGTH)
            {
                return null;
            }
            return header;
        }
        catch (final IOException ex)
        {
            return null;
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

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.stat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The counters file of one process: {@code verbs4j-<pid>.stat} in the stat directory, a small text file replaced
 * atomically (written beside it, then renamed) each time the {@link StatPublisher} samples, so a reader never sees
 * half a file. Layout, one item per line, fields separated by a tab:
 * <pre>
 * verbs4j-stat 1
 * pid     PID
 * time    MILLIS
 * command COMMAND LINE
 * GROUP   LABEL   VALUE      (one line per counter)
 * </pre>
 */
public final class StatFile
{
    /** First line of every counters file. */
    public static final String MAGIC = "verbs4j-stat 1";
    /** Prefix of the file names. */
    public static final String PREFIX = "verbs4j-";
    /** Suffix of the file names. */
    public static final String SUFFIX = ".stat";

    private StatFile()
    {
    }

    /**
     * @param directory the stat directory.
     * @param pid       a process.
     * @return its counters file.
     */
    public static Path of(final Path directory, final long pid)
    {
        return directory.resolve(PREFIX + pid + SUFFIX);
    }

    /**
     * The process a counters file belongs to, from its name.
     *
     * @param file a path.
     * @return the pid, or -1 if the name is not {@code verbs4j-<pid>.stat}.
     */
    public static long pidOf(final Path file)
    {
        final String name = file.getFileName().toString();
        if (!name.startsWith(PREFIX) || !name.endsWith(SUFFIX))
        {
            return -1;
        }
        try
        {
            return Long.parseLong(name.substring(PREFIX.length(), name.length() - SUFFIX.length()));
        }
        catch (final NumberFormatException ex)
        {
            return -1;
        }
    }

    /**
     * Writes a snapshot: to a temporary file beside the target, then an atomic rename over it.
     *
     * @param directory the stat directory (must exist).
     * @param snapshot  what to write.
     * @return the file written.
     * @throws IOException if the file cannot be written.
     */
    public static Path write(final Path directory, final StatSnapshot snapshot) throws IOException
    {
        final StringBuilder text = new StringBuilder(256 + 64 * snapshot.counters().size());
        text.append(MAGIC).append('\n')
            .append("pid\t").append(snapshot.pid()).append('\n')
            .append("time\t").append(snapshot.timeMillis()).append('\n')
            .append("command\t").append(clean(snapshot.command())).append('\n');
        for (final StatSnapshot.Counter counter : snapshot.counters())
        {
            text.append(clean(counter.group())).append('\t').append(clean(counter.label())).append('\t')
                .append(counter.value()).append('\n');
        }
        final Path target = of(directory, snapshot.pid());
        final Path temporary = directory.resolve(target.getFileName() + ".tmp");
        Files.writeString(temporary, text, StandardCharsets.UTF_8);
        Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return target;
    }

    /**
     * Reads a counters file.
     *
     * @param file the file.
     * @return its snapshot.
     * @throws IOException if it cannot be read.
     * @throws IllegalArgumentException if it is not a counters file, naming the file and the line.
     */
    public static StatSnapshot read(final Path file) throws IOException
    {
        final List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        if (lines.size() < 4 || !MAGIC.equals(lines.get(0)))
        {
            throw new IllegalArgumentException(file + " is not a verbs4j counters file (first line '" +
                (lines.isEmpty() ? "" : lines.get(0)) + "', expected '" + MAGIC + "')");
        }
        final long pid = Long.parseLong(field(file, lines, 1, "pid"));
        final long time = Long.parseLong(field(file, lines, 2, "time"));
        final String command = field(file, lines, 3, "command");
        final List<StatSnapshot.Counter> counters = new ArrayList<>();
        for (int i = 4; i < lines.size(); i++)
        {
            final String[] parts = lines.get(i).split("\t", -1);
            if (3 != parts.length)
            {
                throw new IllegalArgumentException(file + " line " + (i + 1) +
                    ": expected GROUP<tab>LABEL<tab>VALUE, got '" + lines.get(i) + "'");
            }
            counters.add(new StatSnapshot.Counter(parts[0], parts[1], Long.parseLong(parts[2])));
        }
        return new StatSnapshot(pid, command, time, counters);
    }

    private static String field(final Path file, final List<String> lines, final int index, final String key)
    {
        final String line = lines.get(index);
        if (!line.startsWith(key + "\t"))
        {
            throw new IllegalArgumentException(file + " line " + (index + 1) + ": expected '" + key +
                "<tab>...', got '" + line + "'");
        }
        return line.substring(key.length() + 1);
    }

    private static String clean(final String text)
    {
        return null == text ? "" : text.replace('\t', ' ').replace('\n', ' ').replace('\r', ' ');
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.stat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The process's counter groups, which a {@link StatPublisher} writes to the counters file that {@code ./verbs4j stat}
 * reads while the job runs (Aeron's counters file and {@code AeronStat} are the model). Devices and communicators
 * register their groups when they open and remove them when they close; registering costs nothing per operation.
 * <p>
 * The file is written only when asked: {@code VERBS4J_STAT=1} in the environment or {@code -Dverbs4j.stat=true}
 * starts a publisher at the first registration (directory {@code VERBS4J_STAT_DIR} / {@code -Dverbs4j.stat.dir},
 * default {@code /dev/shm}, else {@code java.io.tmpdir}; every {@code -Dverbs4j.stat.interval.ms} milliseconds,
 * default 1000); {@link #publishTo} starts one from code.
 */
public final class StatRegistry
{
    /** Property that switches the counters file on (true/1/on). */
    public static final String ENABLED_PROP_NAME = "verbs4j.stat";
    /** Environment variable that switches the counters file on (true/1/on). */
    public static final String ENABLED_ENV_NAME = "VERBS4J_STAT";
    /** Property naming the stat directory. */
    public static final String DIR_PROP_NAME = "verbs4j.stat.dir";
    /** Environment variable naming the stat directory. */
    public static final String DIR_ENV_NAME = "VERBS4J_STAT_DIR";
    /** Property: milliseconds between two writes of the counters file. */
    public static final String INTERVAL_PROP_NAME = "verbs4j.stat.interval.ms";

    private static final List<Registration> GROUPS = new CopyOnWriteArrayList<>();
    private static StatPublisher automatic;
    private static boolean automaticTried;

    private StatRegistry()
    {
    }

    /**
     * Adds a group of counters.
     *
     * @param group  its name, e.g. {@code tcp device 1} (no tab or line break).
     * @param source reads its counters.
     * @return the registration; {@link Registration#close()} removes the group.
     */
    public static Registration register(final String group, final StatSource source)
    {
        final Registration registration = new Registration(group, source);
        GROUPS.add(registration);
        startAutomaticPublisher();
        return registration;
    }

    /**
     * Samples every registered group.
     *
     * @return the counters, group by group in registration order.
     */
    public static List<StatSnapshot.Counter> sample()
    {
        final List<StatSnapshot.Counter> counters = new ArrayList<>();
        for (final Registration registration : GROUPS)
        {
            registration.source.sample((label, value) ->
                counters.add(new StatSnapshot.Counter(registration.group, label, value)));
        }
        return counters;
    }

    /**
     * Starts writing this process's counters file.
     *
     * @param directory the stat directory (created if missing).
     * @param interval  time between two writes.
     * @return the publisher; close it to stop and delete the file.
     * @throws java.io.UncheckedIOException if the directory cannot be created or written.
     */
    public static StatPublisher publishTo(final Path directory, final Duration interval)
    {
        return StatPublisher.start(directory, interval);
    }

    /**
     * The stat directory this process's settings name: {@code -Dverbs4j.stat.dir}, {@code VERBS4J_STAT_DIR},
     * {@code /dev/shm} if it exists, else {@code java.io.tmpdir}. {@code ./verbs4j stat} looks there too.
     *
     * @return the directory.
     */
    public static Path defaultDirectory()
    {
        final String property = System.getProperty(DIR_PROP_NAME);
        if (null != property && !property.isBlank())
        {
            return Path.of(property);
        }
        final String env = System.getenv(DIR_ENV_NAME);
        if (null != env && !env.isBlank())
        {
            return Path.of(env);
        }
        final Path shm = Path.of("/dev/shm");
        return Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
    }

    private static synchronized void startAutomaticPublisher()
    {
        if (automaticTried || !enabled())
        {
            return;
        }
        automaticTried = true;
        final long intervalMs = Long.getLong(INTERVAL_PROP_NAME, 1000L);
        try
        {
            automatic = StatPublisher.start(defaultDirectory(), Duration.ofMillis(Math.max(10, intervalMs)));
            Runtime.getRuntime().addShutdownHook(new Thread(automatic::close, "verbs4j-stat-cleanup"));
        }
        catch (final RuntimeException ex)
        {
            System.getLogger("io.verbs4j.stat").log(System.Logger.Level.WARNING,
                "verbs4j: " + ENABLED_ENV_NAME + " is set but the counters file cannot be written: " + ex.getMessage());
        }
    }

    private static boolean enabled()
    {
        final String value = null != System.getProperty(ENABLED_PROP_NAME) ? System.getProperty(ENABLED_PROP_NAME) :
            System.getenv(ENABLED_ENV_NAME);
        if (null == value)
        {
            return false;
        }
        final String v = value.trim().toLowerCase(Locale.ROOT);
        return "1".equals(v) || "true".equals(v) || "on".equals(v) || "yes".equals(v);
    }

    /** A registered group; closing it removes the group from the counters file. */
    public static final class Registration implements AutoCloseable
    {
        private final String group;
        private final StatSource source;

        private Registration(final String group, final StatSource source)
        {
            this.group = group;
            this.source = source;
        }

        /** @return the group's name. */
        public String group()
        {
            return group;
        }

        /** Removes the group (idempotent). */
        @Override
        public void close()
        {
            GROUPS.remove(this);
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.nio.file.Files;
import java.nio.file.Path;

import io.verbs4j.config.DeviceContext;
import org.agrona.BitUtil;

/**
 * The one place where the shm provider reads configuration (STYLE point 14): each knob is a {@code *_PROP_NAME}
 * system property with a {@code *_DEFAULT}. A {@link DeviceContext} property of the same name overrides the system
 * property for one device ({@code new DeviceContext().property(ShmConfiguration.DIR_PROP_NAME, "/tmp/x")}).
 * Every knob is listed in transport-shm/README.md, section RUNTIME PARAMETERS.
 */
public final class ShmConfiguration
{
    /** Directory of every segment file (a tmpfs, so that files are memory). */
    public static final String DIR_PROP_NAME = "verbs4j.shm.dir";
    /** Default directory. */
    public static final String DIR_DEFAULT = "/dev/shm";

    /**
     * Capacity in bytes of each of the two data rings of a connection (power of two, 64 KiB to 128 MiB). A record
     * holds at most an eighth of it: larger SENDs from registered (unshareable) buffers and served WRITEs are cut
     * into fragments of that size, and served READs into chunks of the staging area (as large as a ring).
     */
    public static final String RING_CAPACITY_PROP_NAME = "verbs4j.shm.ring.capacity";
    /** Default ring capacity: 256 KiB (reserved in full when the connection is made). */
    public static final int RING_CAPACITY_DEFAULT = 256 * 1024;

    /**
     * SENDs up to this many bytes are copied inline into the ring record (two small copies, no handshake); larger
     * ones from shared regions go as a rendezvous: the receiver copies once, straight from the sender's region.
     */
    public static final String EAGER_LIMIT_PROP_NAME = "verbs4j.shm.eager.limit";
    /** Default eager limit: 8 KiB. */
    public static final int EAGER_LIMIT_DEFAULT = 8 * 1024;

    /** Entries in a device's shared region table (the most regions a device can have registered at once). */
    public static final String REGION_TABLE_CAPACITY_PROP_NAME = "verbs4j.shm.region.table.capacity";
    /** Default: 4096 regions. */
    public static final int REGION_TABLE_CAPACITY_DEFAULT = 4096;

    /** Capacity in bytes of a listener's request ring (power of two). */
    public static final String LISTEN_RING_CAPACITY_PROP_NAME = "verbs4j.shm.listen.ring.capacity";
    /** Default: 256 KiB, room for about 60 requests carrying the largest private data. */
    public static final int LISTEN_RING_CAPACITY_DEFAULT = 256 * 1024;

    /** Largest connection private data, in bytes. */
    public static final int MAX_PRIVATE_DATA_LENGTH = 4096;

    private ShmConfiguration()
    {
    }

    /** @return the segment directory from the system properties. */
    public static Path dir()
    {
        return Path.of(System.getProperty(DIR_PROP_NAME, DIR_DEFAULT));
    }

    /**
     * @param context device settings.
     * @return the segment directory for that device.
     */
    public static Path dir(final DeviceContext context)
    {
        return Path.of(context.get(DIR_PROP_NAME, DIR_DEFAULT));
    }

    /**
     * @param context device settings.
     * @return the data ring capacity, checked.
     */
    public static int ringCapacity(final DeviceContext context)
    {
        return powerOfTwo(RING_CAPACITY_PROP_NAME, intValue(context, RING_CAPACITY_PROP_NAME, RING_CAPACITY_DEFAULT),
            64 * 1024, 1 << 27);
    }

    /**
     * @param context device settings.
     * @return the eager limit, checked.
     */
    public static int eagerLimit(final DeviceContext context)
    {
        final int value = intValue(context, EAGER_LIMIT_PROP_NAME, EAGER_LIMIT_DEFAULT);
        if (value < 0)
        {
            throw new IllegalArgumentException(EAGER_LIMIT_PROP_NAME + " must not be negative: " + value);
        }
        return value;
    }

    /**
     * @param context device settings.
     * @return the region table capacity, checked.
     */
    public static int regionTableCapacity(final DeviceContext context)
    {
        final int value = intValue(context, REGION_TABLE_CAPACITY_PROP_NAME, REGION_TABLE_CAPACITY_DEFAULT);
        if (value < 1 || value > 1 << 20)
        {
            throw new IllegalArgumentException(REGION_TABLE_CAPACITY_PROP_NAME + " must be in [1, 1048576]: " + value);
        }
        return value;
    }

    /**
     * @param context device settings.
     * @return the listener ring capacity, checked.
     */
    public static int listenRingCapacity(final DeviceContext context)
    {
        return powerOfTwo(LISTEN_RING_CAPACITY_PROP_NAME,
            intValue(context, LISTEN_RING_CAPACITY_PROP_NAME, LISTEN_RING_CAPACITY_DEFAULT), 64 * 1024, 1 << 30);
    }

    /** @return null when the default directory is usable, else why not. */
    public static String unavailableReason()
    {
        final Path dir = dir();
        if (!Files.isDirectory(dir) || !Files.isWritable(dir))
        {
            return dir + " is not a writable directory (set " + DIR_PROP_NAME + " to a tmpfs directory)";
        }
        return null;
    }

    private static int intValue(final DeviceContext context, final String name, final int defaultValue)
    {
        final String value = context.get(name, null);
        if (null == value)
        {
            return defaultValue;
        }
        try
        {
            return Integer.parseInt(value.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(name + " is not an int: '" + value + "'", ex);
        }
    }

    private static int powerOfTwo(final String name, final int value, final int min, final int max)
    {
        if (value < min || value > max || !BitUtil.isPowerOfTwo(value))
        {
            throw new IllegalArgumentException(name + " must be a power of two in [" + min + ", " + max + "]: " +
                value);
        }
        return value;
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm.protocol;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * The first 40 bytes of every segment file: what it is, which layout version, who owns it (process id and process
 * start time, so that a reused PID is not taken for the owner).
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                         Magic (kind)                          |  0
 *  +---------------------------------------------------------------+
 *  |                        Layout version                         |  4
 *  +---------------------------------------------------------------+
 *  |                    Owner PID (64 bits)                        |  8
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                 Owner device id (64 bits)                     | 16
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                Ready (written last, release)                  | 24
 *  +---------------------------------------------------------------+
 *  |                          Reserved                             | 28
 *  +---------------------------------------------------------------+
 *  |      Owner process start time, epoch ms (64 bits; 0 unknown)  | 32
 *  |                                                               |
 *  +---------------------------------------------------------------+
 * </pre>
 * A reader checks magic, version and ready before trusting anything else in the segment.
 */
public final class SegmentHeader
{
    /** Current layout version of every shm segment and record; bumped on any layout change. */
    public static final int VERSION = 3;
    /** Magic of a device segment ("V4JD"). */
    public static final int MAGIC_DEVICE = 0x56344A44;
    /** Magic of a connection segment ("V4JC"). */
    public static final int MAGIC_CONNECTION = 0x56344A43;
    /** Magic of a listener segment ("V4JL"). */
    public static final int MAGIC_LISTENER = 0x56344A4C;
    /** Value of the ready field once the owner finished initialising the segment. */
    public static final int READY = 1;

    /** Offset of the magic. */
    public static final int MAGIC_OFFSET = 0;
    /** Offset of the layout version. */
    public static final int VERSION_OFFSET = 4;
    /** Offset of the owner's process id. */
    public static final int PID_OFFSET = 8;
    /** Offset of the owner's device id. */
    public static final int DEVICE_ID_OFFSET = 16;
    /** Offset of the ready flag. */
    public static final int READY_OFFSET = 24;
    /** Offset of the owner process's start time (epoch milliseconds, 0 if unknown). */
    public static final int START_TIME_OFFSET = 32;
    /** Length of the header. */
    public static final int LENGTH = 40;

    private SegmentHeader()
    {
    }

    /**
     * Writes the header, ready last.
     *
     * @param buffer   the segment.
     * @param magic    its kind.
     * @param pid      owner process.
     * @param deviceId owner device.
     * @param startTimeMs owner process start time (epoch ms), 0 if unknown.
     */
    public static void write(
        final UnsafeBuffer buffer, final int magic, final long pid, final long deviceId, final long startTimeMs)
    {
        buffer.putInt(MAGIC_OFFSET, magic);
        buffer.putInt(VERSION_OFFSET, VERSION);
        buffer.putLong(PID_OFFSET, pid);
        buffer.putLong(DEVICE_ID_OFFSET, deviceId);
        buffer.putLong(START_TIME_OFFSET, startTimeMs);
        buffer.putIntRelease(READY_OFFSET, READY);
    }

    /**
     * @param buffer a mapped segment.
     * @param magic  the kind expected.
     * @return null if the header is valid, else why not (for the error message).
     */
    public static String check(final UnsafeBuffer buffer, final int magic)
    {
        if (buffer.capacity() < LENGTH)
        {
            return "segment too short (" + buffer.capacity() + " bytes)";
        }
        if (READY != buffer.getIntVolatile(READY_OFFSET))
        {
            return "segment not initialised";
        }
        if (magic != buffer.getInt(MAGIC_OFFSET))
        {
            return "wrong magic 0x" + Integer.toHexString(buffer.getInt(MAGIC_OFFSET)) + ", expected 0x" +
                Integer.toHexString(magic);
        }
        if (VERSION != buffer.getInt(VERSION_OFFSET))
        {
            return "layout version " + buffer.getInt(VERSION_OFFSET) + ", this verbs4j speaks " + VERSION +
                " (mixing verbs4j versions on one host is not supported)";
        }
        return null;
    }
}

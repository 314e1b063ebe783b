// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm.protocol;

/**
 * One entry of a device's shared region table: what a peer needs to check and carry out a one-sided operation on
 * the region by itself (libfabric's {@code ofi_mr_map_verify}, done by the initiator).
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-------------------------------+-------------------------------+
 *  | Control word (64 bits, volatile): rkey(32) | seq(24) | state(8)|  0
 *  +---------------------------------------------------------------+
 *  |          Protection-domain id (64 bits)                       |  8
 *  +---------------------------------------------------------------+
 *  |          Address (IOVA of byte 0, 64 bits)                    | 16
 *  +---------------------------------------------------------------+
 *  |          Length (64 bits)                                     | 24
 *  +---------------------------------------------------------------+
 *  |          File id (64 bits; names the region's file)           | 32
 *  +---------------------------------------------------------------+
 *  |          Access flags (io.verbs4j.Access)                     | 40
 *  +---------------------------------------------------------------+
 *  |          Reserved (to 64 bytes)                               | 44
 *  +---------------------------------------------------------------+
 * </pre>
 * The owner writes every field, then the control word with release; to deregister it stores a control word with
 * state {@link #STATE_FREE} first, then deletes the file. A peer caches the control word it validated with, and
 * re-reads it (one volatile load) before every operation: any change means the rkey is no longer valid.
 */
public final class RegionEntryDescriptor
{
    /** State: unused or deregistered. */
    public static final int STATE_FREE = 0;
    /** State: a region in a shared file that peers map and access directly. */
    public static final int STATE_SHARED = 1;
    /** State: a registered buffer that peers cannot map (one-sided access is refused with REM_ACCESS_ERR). */
    public static final int STATE_PRIVATE = 2;

    /** Offset of the control word. */
    public static final int CONTROL_OFFSET = 0;
    /** Offset of the protection-domain id. */
    public static final int PD_ID_OFFSET = 8;
    /** Offset of the address. */
    public static final int ADDRESS_OFFSET = 16;
    /** Offset of the length. */
    public static final int LENGTH_OFFSET = 24;
    /** Offset of the file id. */
    public static final int FILE_ID_OFFSET = 32;
    /** Offset of the access flags. */
    public static final int ACCESS_OFFSET = 40;
    /** Length of an entry. */
    public static final int LENGTH = 64;

    private RegionEntryDescriptor()
    {
    }

    /**
     * @param rkey  the region's rkey.
     * @param seq   the entry's reuse count.
     * @param state a {@code STATE_*}.
     * @return the control word.
     */
    public static long control(final int rkey, final int seq, final int state)
    {
        return ((long)rkey << 32) | ((long)(seq & 0xFFFFFF) << 8) | (state & 0xFF);
    }

    /**
     * @param control a control word.
     * @return its rkey.
     */
    public static int rkey(final long control)
    {
        return (int)(control >>> 32);
    }

    /**
     * @param control a control word.
     * @return its state.
     */
    public static int state(final long control)
    {
        return (int)(control & 0xFF);
    }
}

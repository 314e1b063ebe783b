// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.link;

import org.agrona.BitUtil;

/**
 * Byte layout of a rank's flag-link region: one <em>area</em> per sending rank, written only by that rank (through
 * its direct peer-memory view) and read by the owner. All fields are native-endian and aligned.
 * <pre>
 *   region = area[0] | area[1] | ... | area[size-1]          area[p] is written by rank p only
 *   area   = slot[0] | ... | slot[slots-1] | credit line
 *
 *   slot (stride = align64(16 + slotBytes)):
 *     0               8               12              16
 *    +---------------+---------------+---------------+----------------------------+
 *    | flag (8)      | length (4)    | unused (4)    | payload (slotBytes) ...    |
 *    +---------------+---------------+---------------+----------------------------+
 *     flag = sequence number + 1 of the message in the slot; written last, with release. It only grows, so a slot
 *     is reused without being reset, and a fresh (zero) region holds no message.
 *
 *   credit line (64 bytes):
 *     0: consumed (8)  — how many of the owner's messages to rank p rank p has consumed; written by p with release
 *        after it read them, polled by the owner before it reuses a slot in p's region.
 *     8: heartbeat (8) — a counter rank p raises about every millisecond while it waits inside an operation; the
 *        owner samples it to tell, when an operation times out, which rank stopped answering (a stopped or hung
 *        process) from the ones merely waiting for it ({@link FlagHeartbeats}).
 * </pre>
 * An 8-byte payload shares the flag's cache line, so a small message is one line moving between the cores.
 */
public final class FlagSlotLayout
{
    /** Offset of the flag in a slot. */
    public static final int FLAG_OFFSET = 0;
    /** Offset of the length in a slot. */
    public static final int LENGTH_OFFSET = 8;
    /** Offset of the payload in a slot. */
    public static final int PAYLOAD_OFFSET = 16;
    /** Offset of the consumed count in the credit line. */
    public static final int CONSUMED_OFFSET = 0;
    /** Offset of the sender's heartbeat in the credit line. */
    public static final int HEARTBEAT_OFFSET = 8;
    /** Length of the credit line. */
    public static final int CREDIT_LINE_LENGTH = 64;

    private final int slots;
    private final int slotBytes;
    private final int stride;
    private final long areaBytes;

    /**
     * @param slots     slots per area.
     * @param slotBytes largest payload.
     */
    public FlagSlotLayout(final int slots, final int slotBytes)
    {
        if (slots < 1 || !BitUtil.isPowerOfTwo(slots) || slotBytes < 8 || 0 != (slotBytes & 7))
        {
            throw new IllegalArgumentException("flag links need a power-of-two number of slots of a multiple of 8 " +
                "bytes (at least 8), got " + slots + " x " + slotBytes);
        }
        this.slots = slots;
        this.slotBytes = slotBytes;
        this.stride = BitUtil.align(PAYLOAD_OFFSET + slotBytes, BitUtil.CACHE_LINE_LENGTH);
        this.areaBytes = (long)slots * stride + CREDIT_LINE_LENGTH;
    }

    /** @return slots per area. */
    public int slots()
    {
        return slots;
    }

    /** @return largest payload. */
    public int slotBytes()
    {
        return slotBytes;
    }

    /** @return bytes from one slot to the next. */
    public int stride()
    {
        return stride;
    }

    /** @return bytes of one area. */
    public long areaBytes()
    {
        return areaBytes;
    }

    /**
     * @param ranks communicator size.
     * @return bytes of a region.
     */
    public long regionBytes(final int ranks)
    {
        return ranks * areaBytes;
    }

    /**
     * @param sender the rank that writes the area.
     * @return offset of its area in a region.
     */
    public long areaOffset(final int sender)
    {
        return sender * areaBytes;
    }

    /**
     * @param seq a message sequence number.
     * @return offset of its slot within an area.
     */
    public long slotOffset(final long seq)
    {
        return (seq & (slots - 1)) * stride;
    }

    /** @return offset of the credit line within an area. */
    public long creditOffset()
    {
        return (long)slots * stride;
    }
}

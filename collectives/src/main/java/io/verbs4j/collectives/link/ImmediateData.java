// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.link;

/**
 * Layout of the 32-bit immediate data of the link protocol's RDMA_WRITE_WITH_IMM messages.
 * <pre>
 *   31 30 29          24 23                                            0
 *  +-----+--------------+-----------------------------------------------+
 *  |kind | slot (6 bits)|  value (24 bits)                              |
 *  +-----+--------------+-----------------------------------------------+
 *  kind 0 DATA   : slot = message sequence mod 64 (checked by the receiver), value = payload length in bytes, or
 *                  {@link #LEAVE_LENGTH} for a leave message (no payload: the sender is closing its communicator)
 *  kind 1 CREDIT : slot = 0, value = number of inbox slots the sender of this message has freed
 *  kind 2 ABORT  : slot = 0, value = 1 + the rank the sender blames for its failure (0: none); the sender closes
 *                  the connection right after, so the receiver can name the root cause instead of the messenger
 *
 *   31 30 29          24 23       19 18                                 0
 *  +-----+--------------+-----------+------------------------------------+
 *  |  3  | slot (6 bits)|credits (5)|  length (19 bits)                  |
 *  +-----+--------------+-----------+------------------------------------+
 *  kind 3 DATA_CREDIT: a DATA message that also returns 1..31 freed inbox slots (payloads below 512 KiB, so a
 *                  full slot of the default 256 KiB fits): in traffic that flows both ways the credits ride on the
 *                  next message instead of a write of their own
 * </pre>
 * DATA is a write of the payload into the receiver's inbox slot {@code seq mod slots}; CREDIT is a 0-byte write.
 * The protocol version lives in the connection handshake ({@link Handshake#VERSION}).
 */
public final class ImmediateData
{
    /** Data message. */
    public static final int KIND_DATA = 0;
    /** Credit return. */
    public static final int KIND_CREDIT = 1;
    /** Failure notice. */
    public static final int KIND_ABORT = 2;
    /** Data message carrying credits. */
    public static final int KIND_DATA_CREDIT = 3;
    /** Bit position of the kind. */
    public static final int KIND_SHIFT = 30;
    /** Bit position of the slot number. */
    public static final int SLOT_SHIFT = 24;
    /** Mask of the slot number after shifting. */
    public static final int SLOT_MASK = 0x3F;
    /** Mask of the value. */
    public static final int VALUE_MASK = 0xFF_FFFF;
    /** Largest value (payload length or credit count). */
    public static final int MAX_VALUE = VALUE_MASK;
    /** DATA value of a leave message: above every slot size (at most 8 MiB). */
    public static final int LEAVE_LENGTH = VALUE_MASK;
    /** Bit position of the credits of a DATA_CREDIT message. */
    public static final int CREDITS_SHIFT = 19;
    /** Most credits a DATA_CREDIT message returns. */
    public static final int MAX_PIGGYBACK_CREDITS = 0x1F;
    /** Longest payload of a DATA_CREDIT message. */
    public static final int MAX_PIGGYBACK_LENGTH = (1 << CREDITS_SHIFT) - 1;

    private ImmediateData()
    {
    }

    /**
     * @param seq    message sequence number.
     * @param length payload length.
     * @return the immediate of a DATA message.
     */
    public static int data(final long seq, final int length)
    {
        return (KIND_DATA << KIND_SHIFT) | (((int)seq & SLOT_MASK) << SLOT_SHIFT) | length;
    }

    /**
     * @param seq     message sequence number.
     * @param length  payload length, 0..{@link #MAX_PIGGYBACK_LENGTH}.
     * @param credits slots freed, 1..{@link #MAX_PIGGYBACK_CREDITS}.
     * @return the immediate of a DATA_CREDIT message.
     */
    public static int dataWithCredits(final long seq, final int length, final int credits)
    {
        return (KIND_DATA_CREDIT << KIND_SHIFT) | (((int)seq & SLOT_MASK) << SLOT_SHIFT) |
            (credits << CREDITS_SHIFT) | length;
    }

    /**
     * @param length         payload length of a DATA message about to be sent ({@link #LEAVE_LENGTH} for a leave).
     * @param pendingCredits freed slots waiting to be returned.
     * @return how many of them the message carries as a DATA_CREDIT: all, where the length and the count fit, else 0.
     */
    public static int creditsToCarry(final int length, final int pendingCredits)
    {
        return length >= 0 && length <= MAX_PIGGYBACK_LENGTH && pendingCredits <= MAX_PIGGYBACK_CREDITS ?
            pendingCredits : 0;
    }

    /**
     * @param kind a message kind.
     * @return whether it carries a payload into an inbox slot (DATA or DATA_CREDIT).
     */
    public static boolean isData(final int kind)
    {
        return KIND_DATA == kind || KIND_DATA_CREDIT == kind;
    }

    /**
     * @param imm the immediate of a DATA or DATA_CREDIT message.
     * @return its payload length (or {@link #LEAVE_LENGTH}).
     */
    public static int dataLength(final int imm)
    {
        return KIND_DATA_CREDIT == kind(imm) ? imm & MAX_PIGGYBACK_LENGTH : imm & VALUE_MASK;
    }

    /**
     * @param imm an immediate.
     * @return the credits it returns: a CREDIT message's value, a DATA_CREDIT message's credits, else 0.
     */
    public static int credits(final int imm)
    {
        final int kind = kind(imm);
        return KIND_CREDIT == kind ? imm & VALUE_MASK :
            (KIND_DATA_CREDIT == kind ? (imm >>> CREDITS_SHIFT) & MAX_PIGGYBACK_CREDITS : 0);
    }

    /**
     * @param credits slots freed.
     * @return the immediate of a CREDIT message.
     */
    public static int credit(final int credits)
    {
        return (KIND_CREDIT << KIND_SHIFT) | credits;
    }

    /**
     * @param culprit the rank blamed, or -1.
     * @return the immediate of an ABORT notice.
     */
    public static int abort(final int culprit)
    {
        return (KIND_ABORT << KIND_SHIFT) | (culprit + 1);
    }

    /**
     * @param imm immediate.
     * @return its kind.
     */
    public static int kind(final int imm)
    {
        return imm >>> KIND_SHIFT;
    }

    /**
     * @param imm immediate.
     * @return its slot number.
     */
    public static int slot(final int imm)
    {
        return (imm >>> SLOT_SHIFT) & SLOT_MASK;
    }

    /**
     * @param imm immediate.
     * @return its value.
     */
    public static int value(final int imm)
    {
        return imm & VALUE_MASK;
    }
}

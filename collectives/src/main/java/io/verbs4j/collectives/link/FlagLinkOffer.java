// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.link;

import java.nio.ByteBuffer;

/**
 * What a rank offers a direct-access peer when flag links are set up, sent once over the verbs link. Little-endian.
 * <pre>
 *   0               4               8               12              16
 *  +---------------+---------------+---------------+---------------+
 *  | version       | enabled (0/1) | slots         | slot bytes    |
 *  +---------------+---------------+---------------+---------------+
 *  | largest operation on flag links (8) | region address (8)      |
 *  +-------------------------------+-------------------------------+
 *  | region rkey   | unused        |                                 = 40 bytes
 *  +---------------+---------------+
 * </pre>
 */
public final class FlagLinkOffer
{
    /** Layout version (2: the credit line carries a heartbeat, see {@link FlagSlotLayout#HEARTBEAT_OFFSET}). */
    public static final int VERSION = 2;
    /** Offset of the version. */
    public static final int VERSION_OFFSET = 0;
    /** Offset of the enabled flag. */
    public static final int ENABLED_OFFSET = 4;
    /** Offset of the slot count. */
    public static final int SLOTS_OFFSET = 8;
    /** Offset of the slot size. */
    public static final int SLOT_BYTES_OFFSET = 12;
    /** Offset of the largest operation size sent over flag links. */
    public static final int MAX_BYTES_OFFSET = 16;
    /** Offset of the region address. */
    public static final int ADDRESS_OFFSET = 24;
    /** Offset of the region rkey. */
    public static final int RKEY_OFFSET = 32;
    /** Total length. */
    public static final int LENGTH = 40;

    private final boolean enabled;
    private final int slots;
    private final int slotBytes;
    private final long maxBytes;
    private final long address;
    private final int rkey;

    /**
     * @param enabled   whether this rank uses flag links.
     * @param slots     slots per peer (a power of two).
     * @param slotBytes payload bytes per slot (a multiple of 8).
     * @param maxBytes  largest operation (bytes) that runs over flag links.
     */
    public FlagLinkOffer(final boolean enabled, final int slots, final int slotBytes, final long maxBytes)
    {
        this(enabled, slots, slotBytes, maxBytes, 0, 0);
    }

    private FlagLinkOffer(final boolean enabled, final int slots, final int slotBytes, final long maxBytes,
        final long address, final int rkey)
    {
        this.enabled = enabled;
        this.slots = slots;
        this.slotBytes = slotBytes;
        this.maxBytes = maxBytes;
        this.address = address;
        this.rkey = rkey;
    }

    /** @return whether flag links are on. */
    public boolean enabled()
    {
        return enabled;
    }

    /** @return largest operation on flag links, bytes. */
    public long maxBytes()
    {
        return maxBytes;
    }

    /** @return the slot layout. */
    public FlagSlotLayout layout()
    {
        return new FlagSlotLayout(slots, slotBytes);
    }

    long address()
    {
        return address;
    }

    int rkey()
    {
        return rkey;
    }

    boolean sameGeometry(final FlagLinkOffer other)
    {
        return slots == other.slots && slotBytes == other.slotBytes && maxBytes == other.maxBytes;
    }

    String describe()
    {
        return slots + " slots x " + slotBytes + " bytes for operations up to " + maxBytes + " bytes";
    }

    void encode(final ByteBuffer out, final long regionAddress, final int regionRkey)
    {
        out.putInt(VERSION_OFFSET, VERSION).putInt(ENABLED_OFFSET, enabled ? 1 : 0).putInt(SLOTS_OFFSET, slots)
            .putInt(SLOT_BYTES_OFFSET, slotBytes).putLong(MAX_BYTES_OFFSET, maxBytes)
            .putLong(ADDRESS_OFFSET, regionAddress).putInt(RKEY_OFFSET, regionRkey);
    }

    static FlagLinkOffer decode(final ByteBuffer in, final int offset)
    {
        final int version = in.getInt(offset + VERSION_OFFSET);
        if (VERSION != version)
        {
            throw new IllegalStateException("flag-link offer version " + version + ", this side speaks " + VERSION);
        }
        return new FlagLinkOffer(0 != in.getInt(offset + ENABLED_OFFSET), in.getInt(offset + SLOTS_OFFSET),
            in.getInt(offset + SLOT_BYTES_OFFSET), in.getLong(offset + MAX_BYTES_OFFSET),
            in.getLong(offset + ADDRESS_OFFSET), in.getInt(offset + RKEY_OFFSET));
    }
}

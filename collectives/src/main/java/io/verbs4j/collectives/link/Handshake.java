// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.link;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Connection private data of a communicator link: what a peer needs to write into this side's inbox. Sent by the
 * connecting (lower) rank in the request and by the accepting (higher) rank in the reply. Little-endian.
 * <pre>
 *   0               4               8               12              16
 *  +---------------+---------------+---------------+---------------+
 *  | version       | rank          | size          | slots         |
 *  +---------------+---------------+---------------+---------------+
 *  | slot bytes    | inbox rkey    | inbox address (8)             |
 *  +---------------+---------------+-------------------------------+
 *  | communicator id (8)           |
 *  +-------------------------------+                                 = 40 bytes
 * </pre>
 */
public final class Handshake
{
    /**
     * Protocol version; a peer with another version is refused. Version 3 widened the length of a DATA_CREDIT
     * immediate to 19 bits ({@link ImmediateData}).
     */
    public static final int VERSION = 3;
    /** Offset of the version. */
    public static final int VERSION_OFFSET = 0;
    /** Offset of the sender's rank. */
    public static final int RANK_OFFSET = 4;
    /** Offset of the communicator size. */
    public static final int SIZE_OFFSET = 8;
    /** Offset of the slot count. */
    public static final int SLOTS_OFFSET = 12;
    /** Offset of the slot size. */
    public static final int SLOT_BYTES_OFFSET = 16;
    /** Offset of the inbox rkey. */
    public static final int RKEY_OFFSET = 20;
    /** Offset of the inbox address. */
    public static final int ADDRESS_OFFSET = 24;
    /** Offset of the communicator id. */
    public static final int COMM_ID_OFFSET = 32;
    /** Total length. */
    public static final int LENGTH = 40;

    /** Sender's version. */
    public final int version;
    /** Sender's rank. */
    public final int rank;
    /** Communicator size. */
    public final int size;
    /** Inbox slots. */
    public final int slots;
    /** Slot bytes. */
    public final int slotBytes;
    /** Inbox rkey. */
    public final int rkey;
    /** Inbox address. */
    public final long address;
    /** Communicator id. */
    public final long commId;

    /**
     * @param rank      rank.
     * @param size      size.
     * @param slots     slots.
     * @param slotBytes slot bytes.
     * @param rkey      inbox rkey.
     * @param address   inbox address.
     * @param commId    communicator id.
     */
    public Handshake(final int rank, final int size, final int slots, final int slotBytes, final int rkey,
        final long address, final long commId)
    {
        this(VERSION, rank, size, slots, slotBytes, rkey, address, commId);
    }

    private Handshake(final int version, final int rank, final int size, final int slots, final int slotBytes,
        final int rkey, final long address, final long commId)
    {
        this.version = version;
        this.rank = rank;
        this.size = size;
        this.slots = slots;
        this.slotBytes = slotBytes;
        this.rkey = rkey;
        this.address = address;
        this.commId = commId;
    }

    /** @return the encoded bytes. */
    public byte[] encode()
    {
        final ByteBuffer buffer = ByteBuffer.allocate(LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(VERSION_OFFSET, version).putInt(RANK_OFFSET, rank).putInt(SIZE_OFFSET, size)
            .putInt(SLOTS_OFFSET, slots).putInt(SLOT_BYTES_OFFSET, slotBytes).putInt(RKEY_OFFSET, rkey)
            .putLong(ADDRESS_OFFSET, address).putLong(COMM_ID_OFFSET, commId);
        return buffer.array();
    }

    /**
     * @param bytes private data.
     * @return the handshake.
     * @throws IllegalArgumentException if too short or of another version.
     */
    public static Handshake decode(final byte[] bytes)
    {
        if (null == bytes || bytes.length < LENGTH)
        {
            throw new IllegalArgumentException("link handshake too short: " + (null == bytes ? 0 : bytes.length) +
                " bytes, need " + LENGTH);
        }
        final ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        final int version = buffer.getInt(VERSION_OFFSET);
        if (VERSION != version)
        {
            throw new IllegalArgumentException("link handshake version " + version + ", this side speaks " + VERSION);
        }
        return new Handshake(version, buffer.getInt(RANK_OFFSET), buffer.getInt(SIZE_OFFSET),
            buffer.getInt(SLOTS_OFFSET), buffer.getInt(SLOT_BYTES_OFFSET), buffer.getInt(RKEY_OFFSET),
            buffer.getLong(ADDRESS_OFFSET), buffer.getLong(COMM_ID_OFFSET));
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * Reusable buffers for the small frames a connection builds off its I/O thread (the ACKs, responses and inline
 * requests of a thread that polled the socket): Netty's pooled buffers are recycled on its own threads only, so on an
 * application thread each would be a new object. A slot is ours while its reference count is 1; a taken slot is
 * retained once more and Netty's release after the write gives it back. All calls hold the driver lock.
 */
final class TcpFrameSlots
{
    /** Slots per connection (a power of two). */
    static final int SLOTS = 32;
    /** Bytes per slot: a header and an inline payload of up to 256 bytes, rounded up. */
    static final int SLOT_BYTES = 320;

    private ByteBuf[] slots;
    private int next;
    private boolean closed;

    /**
     * @param length bytes the frame needs.
     * @return an empty slot of {@link #SLOT_BYTES} to hand to Netty (it releases it once), or null if the frame is
     * larger, every slot is still in flight, or the connection closed: then allocate.
     */
    ByteBuf take(final int length)
    {
        if (length > SLOT_BYTES || closed)
        {
            return null;
        }
        if (null == slots)
        {
            // All at once, on first use: none is allocated later, in the steady state.
            slots = new ByteBuf[SLOTS];
            for (int i = 0; i < SLOTS; i++)
            {
                slots[i] = Unpooled.directBuffer(SLOT_BYTES, SLOT_BYTES);
            }
        }
        for (int i = 0; i < SLOTS; i++)
        {
            final ByteBuf slot = slots[next];
            next = (next + 1) & (SLOTS - 1);
            if (1 == slot.refCnt())
            {
                slot.clear();
                return slot.retain();
            }
        }
        return null;
    }

    /** The connection closed: our references go; a slot still in flight is freed when Netty releases it. */
    void close()
    {
        closed = true;
        if (null != slots)
        {
            for (int i = 0; i < SLOTS; i++)
            {
                slots[i].release();
                slots[i] = null;
            }
            slots = null;
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.engine;

import java.nio.ByteBuffer;

import io.verbs4j.Access;
import io.verbs4j.MemoryRegion;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.collectives.link.MemView;
import org.agrona.BufferUtil;

/**
 * Registered work memory of a communicator, in a few independent areas (staging of heap arrays, fusion buffer,
 * partial sums). An area grows (doubling) when a call needs more and is reused otherwise, so steady state allocates
 * nothing. Without a protection domain (a communicator of one rank) it uses direct buffers.
 */
public final class Scratch implements AutoCloseable
{
    /** Staging of a heap send buffer. */
    public static final int SEND_STAGE = 0;
    /** Staging of a heap receive buffer. */
    public static final int RECV_STAGE = 1;
    /** Partial sums and other work space. */
    public static final int WORK = 2;
    /** Fusion buffer of fused calls. */
    public static final int FUSION = 3;
    private static final int AREAS = 4;
    private static final long MIN_BYTES = 64 * 1024;

    private final ProtectionDomain pd;
    private final MemoryRegion[] regions = new MemoryRegion[AREAS];
    private final ByteBuffer[] buffers = new ByteBuffer[AREAS];
    private final long[] capacity = new long[AREAS];
    private final MemView[] views = new MemView[AREAS];

    /**
     * @param pd protection domain for registration, or null.
     */
    public Scratch(final ProtectionDomain pd)
    {
        this.pd = pd;
        for (int i = 0; i < AREAS; i++)
        {
            views[i] = new MemView();
        }
    }

    /**
     * @param area  which area.
     * @param bytes bytes needed.
     * @return a view of at least that many bytes (valid until the next call for the same area).
     */
    public MemView view(final int area, final long bytes)
    {
        if (capacity[area] < bytes || (0 == capacity[area]))
        {
            grow(area, Math.max(MIN_BYTES, Math.max(bytes, 2 * capacity[area])));
        }
        final MemView view = views[area];
        if (null != regions[area])
        {
            view.wrapRegion(regions[area], 0, bytes);
        }
        else
        {
            view.wrapNative(BufferUtil.address(buffers[area]), bytes);
        }
        return view;
    }

    private void grow(final int area, final long bytes)
    {
        if (null != regions[area])
        {
            regions[area].close();
            regions[area] = null;
        }
        buffers[area] = null;
        if (null != pd)
        {
            regions[area] = pd.allocate(bytes, Access.LOCAL_WRITE);
        }
        else
        {
            if (bytes > Integer.MAX_VALUE)
            {
                throw new IllegalArgumentException("a one-rank communicator stages at most 2 GiB of heap data");
            }
            buffers[area] = ByteBuffer.allocateDirect((int)bytes);
        }
        capacity[area] = bytes;
    }

    /** Frees every area. */
    public void close()
    {
        for (int i = 0; i < AREAS; i++)
        {
            if (null != regions[i])
            {
                try
                {
                    regions[i].close();
                }
                catch (final RuntimeException ignore)
                {
                    // the device may be closed already
                }
                regions[i] = null;
            }
            buffers[i] = null;
            capacity[i] = 0;
        }
    }
}

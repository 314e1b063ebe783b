// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.link;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;

/**
 * An in-memory fake of {@link Links} for ranks that are threads of one JVM: each ordered pair of ranks has a
 * channel (an inbox of {@code slots × slotBytes}, a published counter and a consumed counter), with exactly the
 * credit semantics of {@link VerbsPeerLink}. A rank can be "killed" to make its peers' links fail.
 */
public final class MemoryLinks implements Links
{
    /** The shared state of one cluster of fake ranks. */
    public static final class Mesh
    {
        final int size;
        final int slots;
        final int slotBytes;
        final Channel[][] channels;
        final boolean[] dead;

        /**
         * @param size      ranks.
         * @param slots     slots per channel.
         * @param slotBytes bytes per slot.
         */
        public Mesh(final int size, final int slots, final int slotBytes)
        {
            this.size = size;
            this.slots = slots;
            this.slotBytes = slotBytes;
            this.channels = new Channel[size][size];
            this.dead = new boolean[size];
            for (int from = 0; from < size; from++)
            {
                for (int to = 0; to < size; to++)
                {
                    if (from != to)
                    {
                        channels[from][to] = new Channel(slots, slotBytes);
                    }
                }
            }
        }

        /** @param rank rank whose links all fail from now on. */
        public synchronized void kill(final int rank)
        {
            dead[rank] = true;
        }

        synchronized boolean isDead(final int rank)
        {
            return dead[rank];
        }

        /**
         * @param rank a rank.
         * @return its links.
         */
        public MemoryLinks links(final int rank)
        {
            return new MemoryLinks(this, rank);
        }
    }

    static final class Channel
    {
        final ByteBuffer memory;
        final MemView inbox = new MemView();
        final int[] lengths;
        final AtomicLong published = new AtomicLong();
        final AtomicLong consumed = new AtomicLong();

        Channel(final int slots, final int slotBytes)
        {
            memory = ByteBuffer.allocateDirect(slots * slotBytes);
            inbox.wrapNative(BufferUtil.address(memory), (long)slots * slotBytes);
            lengths = new int[slots];
        }
    }

    private final Mesh mesh;
    private final int rank;
    private final Link[] links;
    private long seen;

    private MemoryLinks(final Mesh mesh, final int rank)
    {
        this.mesh = mesh;
        this.rank = rank;
        this.links = new Link[mesh.size];
        for (int peer = 0; peer < mesh.size; peer++)
        {
            if (peer != rank)
            {
                links[peer] = new Link(peer, mesh.channels[rank][peer], mesh.channels[peer][rank]);
            }
        }
    }

    final class Link implements PeerLink
    {
        private final int peer;
        private final Channel out;
        private final Channel in;
        private long sent;
        private long consumed;

        Link(final int peer, final Channel out, final Channel in)
        {
            this.peer = peer;
            this.out = out;
            this.in = in;
        }

        public int peer()
        {
            return peer;
        }

        public int slotBytes()
        {
            return mesh.slotBytes;
        }

        public boolean trySend(final MemView source, final long offset, final int length)
        {
            if (length > mesh.slotBytes)
            {
                throw new IllegalArgumentException("message of " + length + " bytes exceeds the slot");
            }
            if (isFailed() || sent - out.consumed.get() >= mesh.slots)
            {
                return false;
            }
            final int slot = (int)(sent % mesh.slots);
            final long dst = out.inbox.nativeAddress((long)slot * mesh.slotBytes);
            long done = 0;
            while (done < length)
            {
                final long n = Math.min(length - done, source.contiguousBytes(offset + done));
                UnsafeApi.copyMemory(source.nativeAddress(offset + done), dst + done, n);
                done += n;
            }
            out.lengths[slot] = length;
            sent++;
            out.published.set(sent);
            return true;
        }

        public long lastSendSeq()
        {
            return sent - 1;
        }

        public boolean isSendComplete(final long seq)
        {
            return true;
        }

        public boolean allSendsComplete()
        {
            return true;
        }

        public boolean hasMessage()
        {
            return consumed < in.published.get();
        }

        public MemView inbox()
        {
            return in.inbox;
        }

        public long messageOffset()
        {
            return (consumed % mesh.slots) * mesh.slotBytes;
        }

        public int messageLength()
        {
            return in.lengths[(int)(consumed % mesh.slots)];
        }

        public void release()
        {
            consumed++;
            in.consumed.set(consumed);
        }

        public boolean isFailed()
        {
            return mesh.isDead(peer) || mesh.isDead(rank);
        }
    }

    /** {@inheritDoc} */
    public int rank()
    {
        return rank;
    }

    /** {@inheritDoc} */
    public int size()
    {
        return mesh.size;
    }

    /** {@inheritDoc} */
    public PeerLink link(final int peer)
    {
        return links[peer];
    }

    /** {@inheritDoc} */
    public int poll()
    {
        long total = 0;
        for (final Link link : links)
        {
            if (null != link)
            {
                total += link.in.published.get() + link.out.consumed.get();
            }
        }
        final int work = total != seen ? 1 : 0;
        seen = total;
        return work;
    }

    /** {@inheritDoc} */
    public void scan()
    {
    }

    /** {@inheritDoc} */
    public int failedPeer()
    {
        for (int peer = 0; peer < mesh.size; peer++)
        {
            if (peer != rank && mesh.isDead(peer))
            {
                return peer;
            }
        }
        return -1;
    }

    /** {@inheritDoc} */
    public String failureReason()
    {
        return failedPeer() >= 0 ? "fake peer killed" : null;
    }

    /** {@inheritDoc} */
    public void breakAll(final int culprit)
    {
        mesh.kill(rank);
    }

    /** {@inheritDoc} */
    public void close()
    {
    }
}

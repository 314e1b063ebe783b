// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.engine;

import io.verbs4j.collectives.CommBuffer;
import io.verbs4j.collectives.algorithm.DataMover;
import io.verbs4j.collectives.link.MemView;
import org.agrona.UnsafeApi;

/**
 * Binds an operation's user buffers to the views its algorithm runs on: registered regions and direct buffers in
 * place, heap arrays through the engine's {@link Scratch} staging areas (copied in before the run when they are read,
 * copied out after it when they are written). A heap receive buffer that starts where the send buffer does (in
 * place) shares the send view. The views are reused by every operation: one operation at a time, on the engine's
 * thread.
 */
final class BufferBinder
{
    private final Scratch scratch;
    private final MemView sendView = new MemView();
    private final MemView recvView = new MemView();
    private final MemView tmpView = new MemView();

    /**
     * @param scratch the engine's work memory (staging areas for heap arrays).
     */
    BufferBinder(final Scratch scratch)
    {
        this.scratch = scratch;
    }

    /** @return the view of the last bound send buffer. */
    MemView sendView()
    {
        return sendView;
    }

    /** @return the view of the last bound receive buffer. */
    MemView recvView()
    {
        return recvView;
    }

    /**
     * Binds a send and a receive buffer (the send one copied in when staged).
     *
     * @param send      the send buffer.
     * @param sendBytes bytes of it the operation reads.
     * @param recv      the receive buffer.
     * @param recvBytes bytes of it the operation writes.
     */
    void bindPair(final CommBuffer send, final long sendBytes, final CommBuffer recv, final long recvBytes)
    {
        bindOne(send, sendBytes, sendView, Scratch.SEND_STAGE, true);
        if (CommBuffer.Kind.HEAP == recv.kind() && send.sameStart(recv))
        {
            recvView.wrapView(sendView, 0, recvBytes);
        }
        else
        {
            bindOne(recv, recvBytes, recvView, Scratch.RECV_STAGE, false);
        }
    }

    /**
     * Binds one buffer to {@code view}.
     *
     * @param buffer the user's buffer.
     * @param bytes  bytes of it the operation uses.
     * @param view   the view to bind.
     * @param area   the {@link Scratch} area that stages a heap array.
     * @param copyIn true if the operation reads the buffer (a staged array is copied in).
     */
    void bindOne(final CommBuffer buffer, final long bytes, final MemView view, final int area,
        final boolean copyIn)
    {
        switch (buffer.kind())
        {
            case REGION:
                view.wrapRegion(buffer.region(), buffer.offset(), bytes);
                break;
            case DIRECT:
                view.wrapNative(buffer.address(), bytes);
                break;
            default:
                view.wrapView(scratch.view(area, bytes), 0, bytes);
                if (copyIn)
                {
                    copyIn(buffer, view, 0, bytes);
                }
                break;
        }
    }

    /**
     * Copies a user buffer into a view (a heap array directly; other buffers through a temporary view).
     *
     * @param buffer the user's buffer.
     * @param dst    destination view.
     * @param dstOff offset in it.
     * @param bytes  bytes.
     */
    void copyIn(final CommBuffer buffer, final MemView dst, final long dstOff, final long bytes)
    {
        if (CommBuffer.Kind.HEAP != buffer.kind())
        {
            bindOne(buffer, bytes, tmpView, Scratch.WORK, false);
            DataMover.copy(dst, dstOff, tmpView, 0, bytes);
            return;
        }
        long done = 0;
        while (done < bytes)
        {
            final long n = Math.min(bytes - done, dst.contiguousBytes(dstOff + done));
            UnsafeApi.copyMemory(buffer.array(), buffer.offset() + done, null, dst.nativeAddress(dstOff + done), n);
            done += n;
        }
    }

    /**
     * Copies a result back into a heap array (other buffers were written in place: nothing to do).
     *
     * @param buffer the user's buffer.
     * @param src    the view holding the result.
     * @param srcOff offset in it.
     * @param bytes  bytes.
     */
    void copyOut(final CommBuffer buffer, final MemView src, final long srcOff, final long bytes)
    {
        if (CommBuffer.Kind.HEAP != buffer.kind())
        {
            return;
        }
        long done = 0;
        while (done < bytes)
        {
            final long n = Math.min(bytes - done, src.contiguousBytes(srcOff + done));
            UnsafeApi.copyMemory(null, src.nativeAddress(srcOff + done), buffer.array(), buffer.offset() + done, n);
            done += n;
        }
    }

    /**
     * Copies a result into a user buffer of any kind (for results that were computed elsewhere, as a fusion buffer).
     *
     * @param buffer the user's buffer.
     * @param src    the view holding the result.
     * @param srcOff offset in it.
     * @param bytes  bytes.
     */
    void copyOutAny(final CommBuffer buffer, final MemView src, final long srcOff, final long bytes)
    {
        if (CommBuffer.Kind.HEAP == buffer.kind())
        {
            copyOut(buffer, src, srcOff, bytes);
            return;
        }
        bindOne(buffer, bytes, tmpView, Scratch.WORK, false);
        DataMover.copy(tmpView, 0, src, srcOff, bytes);
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.engine;

import io.verbs4j.collectives.CommBuffer;

/**
 * Argument checks of every operation, before anything is sent: a bad call throws {@link IllegalArgumentException}
 * naming the argument and leaves the communicator usable. No allocation unless it throws.
 */
final class Validation
{
    private Validation()
    {
    }

    static void check(final OpRequest r, final int rank, final int size)
    {
        if (null == r.kind)
        {
            throw new IllegalArgumentException("operation kind missing");
        }
        if (OpKind.BARRIER == r.kind)
        {
            return;
        }
        if (null == r.type)
        {
            throw new IllegalArgumentException(r.kind.label() + ": data type must not be null");
        }
        if (r.count < 0 || r.recvCount < 0)
        {
            throw new IllegalArgumentException(r.kind.label() + ": count must be >= 0, was " + r.count);
        }
        final long es = r.type.sizeBytes();
        switch (r.kind)
        {
            case ALL_REDUCE:
                reducing(r);
                buffer(r, "send", r.send, r.count * es);
                buffer(r, "recv", r.recv, r.count * es);
                break;
            case ALL_REDUCE_FUSED:
                reducing(r);
                if (null == r.fused || null == r.fusedCounts)
                {
                    throw new IllegalArgumentException("allReduceFused: " + (null == r.fused ? "buffers" : "counts") +
                        " must not be null");
                }
                if (r.fused.length != r.fusedCounts.length)
                {
                    throw new IllegalArgumentException("allReduceFused: need as many counts as buffers");
                }
                for (int i = 0; i < r.fused.length; i++)
                {
                    if (r.fusedCounts[i] < 0)
                    {
                        throw new IllegalArgumentException("allReduceFused: count " + i + " is negative");
                    }
                    buffer(r, "fused", r.fused[i], r.fusedCounts[i] * es);
                }
                break;
            case BROADCAST:
                root(r, size);
                buffer(r, "buffer", r.send, r.count * es);
                break;
            case REDUCE:
                reducing(r);
                root(r, size);
                buffer(r, "send", r.send, r.count * es);
                if (rank == r.root)
                {
                    buffer(r, "recv", r.recv, r.count * es);
                }
                break;
            case ALL_GATHER:
            case GATHER:
                if (OpKind.GATHER == r.kind)
                {
                    root(r, size);
                }
                buffer(r, "send", r.send, r.count * es);
                if (OpKind.ALL_GATHER == r.kind || rank == r.root)
                {
                    buffer(r, "recv", r.recv, r.count * es * size);
                }
                break;
            case REDUCE_SCATTER:
                reducing(r);
                buffer(r, "send", r.send, r.count * es * size);
                buffer(r, "recv", r.recv, r.count * es);
                break;
            case SCATTER:
                root(r, size);
                if (rank == r.root)
                {
                    buffer(r, "send", r.send, r.count * es * size);
                }
                buffer(r, "recv", r.recv, r.count * es);
                break;
            case ALL_TO_ALL:
                buffer(r, "send", r.send, r.count * es * size);
                buffer(r, "recv", r.recv, r.count * es * size);
                break;
            case SEND:
                buffer(r, "buffer", r.send, r.count * es);
                peer(r, r.root, rank, size);
                break;
            case RECV:
                buffer(r, "buffer", r.recv, r.count * es);
                peer(r, r.root, rank, size);
                break;
            case SEND_RECV:
                buffer(r, "send", r.send, r.count * es);
                buffer(r, "recv", r.recv, r.recvCount * es);
                peer(r, r.root, rank, size);
                peer(r, r.peer2, rank, size);
                break;
            default:
                throw new IllegalArgumentException("not an operation: " + r.kind);
        }
    }

    private static void reducing(final OpRequest r)
    {
        if (null == r.op)
        {
            throw new IllegalArgumentException(r.kind.label() + ": reduce op must not be null");
        }
        r.op.validateFor(r.type);
    }

    private static void root(final OpRequest r, final int size)
    {
        if (r.root < 0 || r.root >= size)
        {
            throw new IllegalArgumentException(r.kind.label() + ": root " + r.root + " outside [0, " + size + ")");
        }
    }

    private static void peer(final OpRequest r, final int peer, final int rank, final int size)
    {
        if (peer < 0 || peer >= size || peer == rank)
        {
            throw new IllegalArgumentException(r.kind.label() + ": peer " + peer + " must be another rank in [0, " +
                size + ")");
        }
    }

    private static void buffer(final OpRequest r, final String name, final CommBuffer buffer, final long bytes)
    {
        if (null == buffer)
        {
            if (0 == bytes)
            {
                return;
            }
            throw new IllegalArgumentException(r.kind.label() + ": " + name + " buffer must not be null");
        }
        if (buffer.byteLength() < bytes)
        {
            throw new IllegalArgumentException(r.kind.label() + ": " + name + " buffer holds " + buffer.byteLength() +
                " bytes but the call needs " + bytes + " (count × " + r.type + " size" +
                (bytes > r.count * r.type.sizeBytes() ? " × ranks" : "") + ")");
        }
        final int es = r.type.sizeBytes();
        final long start = CommBuffer.Kind.DIRECT == buffer.kind() ? buffer.address() :
            (CommBuffer.Kind.REGION == buffer.kind() ? buffer.offset() : 0);
        if (0 != start % es)
        {
            throw new IllegalArgumentException(r.kind.label() + ": " + name + " buffer starts at byte " + start +
                ", not a multiple of the " + r.type + " size " + es);
        }
    }
}

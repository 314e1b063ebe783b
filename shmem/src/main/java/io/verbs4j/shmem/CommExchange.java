// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shmem;

import java.time.Duration;
import java.util.Arrays;

import io.verbs4j.collectives.CommBuffer;
import io.verbs4j.collectives.Communicator;
import io.verbs4j.collectives.rendezvous.AddressExchange;
import io.verbs4j.collectives.types.DataType;

/**
 * The bootstrap all-gather run over an existing communicator (two AllGathers: the lengths, then the records padded
 * to the longest), so that the heap's queue-pair mesh is set up through the world communicator, whatever store or
 * exchange that one was built from. Setup path: allocates. The timeout is the communicator's own operation timeout.
 */
final class CommExchange implements AddressExchange
{
    private final Communicator comm;

    CommExchange(final Communicator comm)
    {
        this.comm = comm;
    }

    /** {@inheritDoc} */
    public byte[][] allGather(final int rank, final int size, final byte[] mine, final Duration timeout)
    {
        final int[] lengths = new int[size];
        comm.allGather(CommBuffer.of(new int[]{mine.length}), CommBuffer.of(lengths), 1, DataType.INT32);
        int max = 0;
        for (final int length : lengths)
        {
            max = Math.max(max, length);
        }
        final byte[] padded = Arrays.copyOf(mine, max);
        final byte[] all = new byte[max * size];
        comm.allGather(CommBuffer.of(padded), CommBuffer.of(all), max, DataType.INT8);
        final byte[][] result = new byte[size][];
        for (int q = 0; q < size; q++)
        {
            result[q] = Arrays.copyOfRange(all, q * max, q * max + lengths[q]);
        }
        return result;
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives;

import java.time.Duration;
import java.util.Arrays;

import io.verbs4j.collectives.rendezvous.AddressExchange;
import io.verbs4j.collectives.types.DataType;

/**
 * The address exchange of a sub-communicator's bootstrap ({@link Communicator#split}), run as two all-gathers over
 * the parent communicator, so that splitting needs no rendezvous store. Every rank of the parent takes part, in or
 * out of the group; the caller's thread runs it.
 */
final class ParentExchange implements AddressExchange
{
    private final Communicator parent;
    private final int[] group;

    ParentExchange(final Communicator parent, final int[] group)
    {
        this.parent = parent;
        this.group = group;
    }

    /** {@inheritDoc} */
    public byte[][] allGather(final int rank, final int size, final byte[] mine, final Duration timeout)
    {
        final int n = parent.size();
        final int[] lengths = new int[n];
        parent.allGather(CommBuffer.of(new int[]{mine.length}), CommBuffer.of(lengths), 1, DataType.INT32);
        int max = 0;
        for (final int length : lengths)
        {
            max = Math.max(max, length);
        }
        final byte[] padded = Arrays.copyOf(mine, max);
        final byte[] all = new byte[max * n];
        parent.allGather(CommBuffer.of(padded), CommBuffer.of(all), max, DataType.INT8);
        final byte[][] result = new byte[group.length][];
        for (int i = 0; i < group.length; i++)
        {
            result[i] = Arrays.copyOfRange(all, group[i] * max, group[i] * max + lengths[group[i]]);
        }
        return result;
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j;

/**
 * The scatter-gather list of a work request, as parallel primitive arrays of a fixed capacity: the storage and
 * checks {@link SendRequest} and {@link RecvRequest} share. Not thread-safe.
 */
final class SgeList
{
    private final String owner;
    private final long[] addresses;
    private final int[] lengths;
    private final int[] lkeys;
    private int count;
    private int version;

    /**
     * @param owner  the request kind, for messages.
     * @param maxSge capacity.
     */
    SgeList(final String owner, final int maxSge)
    {
        if (maxSge < 1)
        {
            throw new IllegalArgumentException("maxSge must be at least 1, was " + maxSge);
        }
        this.owner = owner;
        addresses = new long[maxSge];
        lengths = new int[maxSge];
        lkeys = new int[maxSge];
    }

    void clear()
    {
        count = 0;
        version++;
    }

    void add(final long address, final int length, final int lkey)
    {
        if (count == addresses.length)
        {
            throw new IndexOutOfBoundsException("this " + owner + " holds at most " + addresses.length + " SGEs");
        }
        addresses[count] = address;
        lengths[count] = length;
        lkeys[count] = lkey;
        count++;
        version++;
    }

    void address(final int index, final long address)
    {
        checkIndex(index);
        addresses[index] = address;
        version++;
    }

    void length(final int index, final int length)
    {
        checkIndex(index);
        lengths[index] = length;
        version++;
    }

    /** @return a counter that changes with every change of the list. */
    int version()
    {
        return version;
    }

    int count()
    {
        return count;
    }

    int capacity()
    {
        return addresses.length;
    }

    long address(final int index)
    {
        return addresses[index];
    }

    int length(final int index)
    {
        return lengths[index];
    }

    int lkey(final int index)
    {
        return lkeys[index];
    }

    long totalLength()
    {
        long total = 0;
        for (int i = 0; i < count; i++)
        {
            total += lengths[i];
        }
        return total;
    }

    private void checkIndex(final int index)
    {
        if (index < 0 || index >= count)
        {
            throw new IndexOutOfBoundsException("SGE " + index + " not set; this " + owner + " has " + count);
        }
    }
}

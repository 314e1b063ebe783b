// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shmem;

import java.util.Arrays;

import org.agrona.DirectBuffer;

/**
 * The heap's own registered memory (the local copies of its symmetric objects), so that the verbs path can send
 * from or read into a user buffer without a bounce copy when that buffer lies in one of them: {@link #find} answers
 * with the verbs address and lkey on a given device. A linear scan over the live allocations (a handful, typically):
 * allocation-free. Single-threaded (the heap's thread); changed only by collective allocate/free.
 */
final class LocalRegistrations
{
    private SymmetricMemory[] live = new SymmetricMemory[8];
    private int count;
    private long foundIova;
    private int foundLkey;

    void add(final SymmetricMemory memory)
    {
        if (count == live.length)
        {
            live = Arrays.copyOf(live, 2 * count);
        }
        live[count++] = memory;
    }

    void remove(final SymmetricMemory memory)
    {
        for (int i = 0; i < count; i++)
        {
            if (live[i] == memory)
            {
                live[i] = live[--count];
                live[count] = null;
                return;
            }
        }
    }

    /** @return the live allocations' count. */
    int count()
    {
        return count;
    }

    /**
     * @param i index below {@link #count()}.
     * @return that allocation.
     */
    SymmetricMemory get(final int i)
    {
        return live[i];
    }

    /**
     * @param buffer a local buffer.
     * @param index  first byte.
     * @param length bytes.
     * @param device the device whose registration is wanted.
     * @return true when {@code [index, index + length)} of the buffer lies in a registered local copy; then
     *         {@link #foundIova()} and {@link #foundLkey()} describe it.
     */
    boolean find(final DirectBuffer buffer, final int index, final int length, final int device)
    {
        if (null != buffer.byteArray())
        {
            return false;
        }
        final long address = buffer.addressOffset() + index;
        for (int i = 0; i < count; i++)
        {
            final SymmetricMemory m = live[i];
            final long start = m.localAddress();
            if (address >= start && address + length <= start + m.length())
            {
                foundIova = m.iova(device) + (address - start);
                foundLkey = m.lkey(device);
                return true;
            }
        }
        return false;
    }

    /** @return verbs address found by the last successful {@link #find}. */
    long foundIova()
    {
        return foundIova;
    }

    /** @return lkey found by the last successful {@link #find}. */
    int foundLkey()
    {
        return foundLkey;
    }
}

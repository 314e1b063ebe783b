// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

/**
 * Two ints in one long, as the work-queue and completion records keep them ({@link WorkRecord},
 * {@link CompletionRecord}): the first in the high 32 bits, the second in the low 32 bits.
 */
final class IntPair
{
    private IntPair()
    {
    }

    /**
     * @param high the value of the high 32 bits.
     * @param low  the value of the low 32 bits.
     * @return both in one word.
     */
    static long pack(final int high, final int low)
    {
        return (long)high << 32 | (low & 0xFFFF_FFFFL);
    }

    /**
     * @param word a packed word.
     * @return its high 32 bits.
     */
    static int high(final long word)
    {
        return (int)(word >>> 32);
    }

    /**
     * @param word a packed word.
     * @return its low 32 bits.
     */
    static int low(final long word)
    {
        return (int)word;
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shmem;

/**
 * Comparison of a wait ({@code NVSHMEM_CMP_*}): {@link SymmetricHeap#waitUntil} returns once
 * {@code ivar <cmp> value} holds, comparing signed 64-bit values.
 */
public enum Cmp
{
    /** {@code ivar == value}. */
    EQ,
    /** {@code ivar != value}. */
    NE,
    /** {@code ivar > value}. */
    GT,
    /** {@code ivar >= value}. */
    GE,
    /** {@code ivar < value}. */
    LT,
    /** {@code ivar <= value}. */
    LE;

    /**
     * @param ivar  the observed value.
     * @param value the value compared with.
     * @return true when {@code ivar <this> value}.
     */
    public boolean test(final long ivar, final long value)
    {
        switch (this)
        {
            case EQ:
                return ivar == value;
            case NE:
                return ivar != value;
            case GT:
                return ivar > value;
            case GE:
                return ivar >= value;
            case LT:
                return ivar < value;
            case LE:
                return ivar <= value;
            default:
                throw new IllegalStateException("unknown comparison " + this);
        }
    }
}

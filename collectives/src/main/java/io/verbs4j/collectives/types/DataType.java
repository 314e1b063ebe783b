// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.types;

/**
 * Element types a collective can carry. Every element is stored in native byte order at its natural size.
 *
 * <p>The two 16-bit floating-point types are storage formats only: reductions widen them to {@code float},
 * apply the operator and round back (see {@link Float16} and {@link BFloat16}).
 */
public enum DataType
{
    /** Signed two's-complement 8-bit integer. */
    INT8(1, true),
    /** Unsigned 8-bit integer (compared as 0..255). */
    UINT8(1, true),
    /** Signed two's-complement 32-bit integer. */
    INT32(4, true),
    /** Signed two's-complement 64-bit integer. */
    INT64(8, true),
    /** IEEE 754 binary16 (half precision). */
    FLOAT16(2, false),
    /** bfloat16: the upper 16 bits of an IEEE 754 binary32. */
    BFLOAT16(2, false),
    /** IEEE 754 binary32. */
    FLOAT32(4, false),
    /** IEEE 754 binary64. */
    FLOAT64(8, false);

    private final int sizeBytes;
    private final boolean integer;

    DataType(final int sizeBytes, final boolean integer)
    {
        this.sizeBytes = sizeBytes;
        this.integer = integer;
    }

    /**
     * Size of one element.
     *
     * @return the number of bytes one element occupies (1, 2, 4 or 8).
     */
    public int sizeBytes()
    {
        return sizeBytes;
    }

    /**
     * Whether this is an integer type (the only kind the bitwise operators accept).
     *
     * @return true for INT8, UINT8, INT32 and INT64.
     */
    public boolean isInteger()
    {
        return integer;
    }

    /**
     * Whether this is a floating-point type.
     *
     * @return true for FLOAT16, BFLOAT16, FLOAT32 and FLOAT64.
     */
    public boolean isFloat()
    {
        return !integer;
    }

    /**
     * Number of bytes {@code count} elements occupy, checked for overflow.
     *
     * @param count number of elements, not negative.
     * @return {@code count * sizeBytes()}.
     * @throws IllegalArgumentException if count is negative or the byte length does not fit in a long.
     */
    public long byteLength(final long count)
    {
        if (count < 0)
        {
            throw new IllegalArgumentException("count must be >= 0 but was " + count);
        }
        try
        {
            return Math.multiplyExact(count, (long)sizeBytes);
        }
        catch (final ArithmeticException ex)
        {
            throw new IllegalArgumentException(
                "count " + count + " of " + this + " is too large: its byte length overflows a long", ex);
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.types;

/**
 * Conversions between bfloat16 bit patterns (held in a {@code short}) and {@code float}.
 *
 * <p>bfloat16 is the upper half of an IEEE 754 binary32: 1 sign bit, 8 exponent bits, 7 fraction bits. Widening
 * is exact (append 16 zero bits). Narrowing rounds to nearest, ties to even; finite values too large become
 * infinity; subnormals round like any other value. NaN stays NaN: the top 7 payload bits are kept and the quiet
 * bit is set, so truncating a NaN whose payload lives in the low bits cannot produce infinity.
 *
 * <p>Stateless, allocation-free, thread-safe.
 */
public final class BFloat16
{
    /** Bit pattern of positive infinity. */
    public static final short POSITIVE_INFINITY = (short)0x7F80;
    /** Bit pattern of the canonical quiet NaN. */
    public static final short NaN = (short)0x7FC0;

    private BFloat16()
    {
    }

    /**
     * Widens a bfloat16 value to float. Exact for every input.
     *
     * @param bits the bfloat16 bit pattern.
     * @return the same value as a float.
     */
    public static float toFloat(final short bits)
    {
        return Float.intBitsToFloat(bits << 16);
    }

    /**
     * Narrows a float to bfloat16, rounding to nearest with ties to even.
     *
     * @param value the float value.
     * @return the bfloat16 bit pattern.
     */
    public static short fromFloat(final float value)
    {
        final int bits = Float.floatToRawIntBits(value);
        if ((bits & 0x7FFFFFFF) > 0x7F800000)
        {
            return (short)((bits >>> 16) | 0x0040);
        }
        // Adding 0x7FFF plus the lowest kept bit rounds half to even; a carry that reaches the exponent is the
        // correct result (next binade, or infinity from the largest finite values).
        final int rounded = bits + 0x7FFF + ((bits >>> 16) & 1);
        return (short)(rounded >>> 16);
    }

    /**
     * Whether the bit pattern is a NaN.
     *
     * @param bits the bfloat16 bit pattern.
     * @return true if the exponent is all ones and the fraction is not zero.
     */
    public static boolean isNaN(final short bits)
    {
        return (bits & 0x7FFF) > 0x7F80;
    }
}

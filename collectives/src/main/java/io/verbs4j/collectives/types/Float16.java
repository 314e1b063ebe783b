// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.types;

/**
 * Conversions between IEEE 754 binary16 bit patterns (held in a {@code short}) and {@code float}.
 *
 * <p>binary16 is 1 sign bit, 5 exponent bits (bias 15) and 10 fraction bits. Conversion to float is exact.
 * Conversion from float rounds to nearest, ties to even; values whose magnitude is at least 65520 become
 * infinity, values at most 2^-25 become signed zero, and the range in between the smallest subnormal and the
 * smallest normal (2^-14) becomes a correctly rounded subnormal. NaN stays NaN: the top 10 payload bits are kept
 * and the result is made quiet, so a NaN never turns into infinity.
 *
 * <p>JDK 20 has {@code Float.float16ToFloat}; this class exists because verbs4j targets Java 17. Stateless,
 * allocation-free, thread-safe.
 */
public final class Float16
{
    /** Bit pattern of positive infinity. */
    public static final short POSITIVE_INFINITY = (short)0x7C00;
    /** Bit pattern of the canonical quiet NaN. */
    public static final short NaN = (short)0x7E00;
    /** Bit pattern of the largest finite value, 65504. */
    public static final short MAX_VALUE = (short)0x7BFF;

    private static final int SIGN_MASK = 0x8000;
    private static final int EXPONENT_MASK = 0x7C00;
    private static final int FRACTION_MASK = 0x03FF;
    private static final int QUIET_BIT = 0x0200;
    /** float32 bias (127) minus float16 bias (15). */
    private static final int BIAS_DIFFERENCE = 112;
    /** |f| bits at or above this (65520, halfway between MAX_VALUE and 65536) round to infinity. */
    private static final int OVERFLOW_THRESHOLD_BITS = 0x477FF000;
    /** |f| bits below this (2^-14) map to a binary16 subnormal or zero. */
    private static final int MIN_NORMAL_BITS = 0x38800000;

    private Float16()
    {
    }

    /**
     * Widens a binary16 value to float. Exact for every input.
     *
     * @param bits the binary16 bit pattern.
     * @return the same value as a float (NaN payload shifted into the top fraction bits).
     */
    public static float toFloat(final short bits)
    {
        final int h = bits & 0xFFFF;
        final int sign = (h & SIGN_MASK) << 16;
        final int exponent = (h & EXPONENT_MASK) >>> 10;
        final int fraction = h & FRACTION_MASK;
        if (0x1F == exponent)
        {
            return Float.intBitsToFloat(sign | 0x7F800000 | (fraction << 13));
        }
        if (0 == exponent)
        {
            // Subnormal (or zero): value = fraction * 2^-24, exactly representable as a float.
            final float magnitude = fraction * 0x1p-24f;
            return 0 == sign ? magnitude : -magnitude;
        }
        return Float.intBitsToFloat(sign | ((exponent + BIAS_DIFFERENCE) << 23) | (fraction << 13));
    }

    /**
     * Narrows a float to binary16, rounding to nearest with ties to even.
     *
     * @param value the float value.
     * @return the binary16 bit pattern.
     */
    public static short fromFloat(final float value)
    {
        final int bits = Float.floatToRawIntBits(value);
        final int sign = (bits >>> 16) & SIGN_MASK;
        final int abs = bits & 0x7FFFFFFF;

        if (abs >= 0x7F800000)
        {
            if (0x7F800000 == abs)
            {
                return (short)(sign | EXPONENT_MASK);
            }
            // NaN: keep what payload fits and set the quiet bit so the result cannot read as infinity.
            return (short)(sign | EXPONENT_MASK | QUIET_BIT | ((abs >>> 13) & FRACTION_MASK));
        }
        if (abs >= OVERFLOW_THRESHOLD_BITS)
        {
            return (short)(sign | EXPONENT_MASK);
        }
        if (abs < MIN_NORMAL_BITS)
        {
            return (short)(sign | subnormalMagnitude(abs));
        }

        // Normal: rebias the exponent, drop 13 fraction bits with round-to-nearest-even. A carry out of the
        // fraction correctly bumps the exponent (and can reach infinity only above the threshold handled above).
        final int fraction = abs & 0x7FFFFF;
        int h = (((abs >>> 23) - BIAS_DIFFERENCE) << 10) | (fraction >>> 13);
        final int remainder = fraction & 0x1FFF;
        if (remainder > 0x1000 || (0x1000 == remainder && 0 != (h & 1)))
        {
            h++;
        }
        return (short)(sign | h);
    }

    private static int subnormalMagnitude(final int abs)
    {
        final int floatExponent = abs >>> 23;
        if (0 == floatExponent)
        {
            return 0; // float subnormals are far below 2^-25
        }
        // value = significand * 2^(e - 150); as a multiple of 2^-24 that is significand >> (126 - e).
        final int shift = 126 - floatExponent;
        if (shift > 24)
        {
            return 0; // below 2^-25: rounds to zero
        }
        final int significand = (abs & 0x7FFFFF) | 0x800000;
        int h = significand >>> shift;
        final int remainder = significand & ((1 << shift) - 1);
        final int halfway = 1 << (shift - 1);
        if (remainder > halfway || (remainder == halfway && 0 != (h & 1)))
        {
            h++; // may carry into the smallest normal, whose bit pattern is exactly h == 0x400
        }
        return h;
    }

    /**
     * Whether the bit pattern is a NaN.
     *
     * @param bits the binary16 bit pattern.
     * @return true if the exponent is all ones and the fraction is not zero.
     */
    public static boolean isNaN(final short bits)
    {
        return (bits & 0x7FFF) > EXPONENT_MASK;
    }
}

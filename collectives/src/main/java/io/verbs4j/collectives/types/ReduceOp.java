// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.types;

/**
 * Reduction operators. Each is element-wise, commutative and associative for integers; for floating point the
 * result depends on the order of application, which the collective algorithms fix so every rank gets the same bits.
 */
public enum ReduceOp
{
    /** Sum; integers wrap around on overflow (two's complement), as in C and NCCL. */
    SUM,
    /** Product; integers wrap around on overflow. */
    PROD,
    /**
     * Minimum. UINT8 compares unsigned. For floating point a NaN in either operand gives NaN (like
     * {@link Math#min(double, double)} and IEEE 754-2019 {@code minimum}), and -0.0 is less than +0.0.
     */
    MIN,
    /**
     * Maximum. UINT8 compares unsigned. For floating point a NaN in either operand gives NaN (like
     * {@link Math#max(double, double)} and IEEE 754-2019 {@code maximum}), and +0.0 is greater than -0.0.
     */
    MAX,
    /**
     * Average: the kernels apply SUM and the collective divides once at the end with
     * {@link Reductions#finishAverage(DataType, long, long, int)}, as NCCL's {@code ncclAvg} does.
     */
    AVG,
    /** Bitwise AND; integer types only. */
    AND,
    /** Bitwise OR; integer types only. */
    OR,
    /** Bitwise exclusive OR; integer types only. */
    XOR;

    /**
     * Whether this operator works on the bits rather than on the value.
     *
     * @return true for AND, OR and XOR.
     */
    public boolean isBitwise()
    {
        return this == AND || this == OR || this == XOR;
    }

    /**
     * Whether this operator can be applied to elements of {@code type}.
     *
     * @param type the element type.
     * @return false only for a bitwise operator on a floating-point type.
     */
    public boolean supports(final DataType type)
    {
        return !isBitwise() || type.isInteger();
    }

    /**
     * Checks that this operator can be applied to {@code type}.
     *
     * @param type the element type.
     * @throws IllegalArgumentException naming both if the combination is invalid.
     */
    public void validateFor(final DataType type)
    {
        if (null == type)
        {
            throw new IllegalArgumentException("data type must not be null");
        }
        if (!supports(type))
        {
            throw new IllegalArgumentException(
                "reduce op " + this + " is bitwise and only valid on integer types (INT8, UINT8, INT32, INT64), not " +
                type + "; use SUM/PROD/MIN/MAX/AVG for floating point");
        }
    }
}

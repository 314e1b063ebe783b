// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.coll;

import io.verbs4j.collectives.Algorithm;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Names on the command line and in the table: data types, reduction operators, algorithms and transports, with the
 * aliases nccl-tests users type ({@code float}, {@code half}, {@code double}).
 */
public final class CollNames
{
    private CollNames()
    {
    }

    /**
     * Parses {@code -d}: a comma-separated list of types, or {@code all}.
     *
     * @param text e.g. {@code float32}, {@code float,half}, {@code all}.
     * @return the types in order.
     * @throws IllegalArgumentException for an unknown name.
     */
    public static List<DataType> dataTypes(final String text)
    {
        if ("all".equalsIgnoreCase(text.trim()))
        {
            return Arrays.asList(DataType.values());
        }
        final List<DataType> types = new ArrayList<>();
        for (final String item : text.split(","))
        {
            types.add(dataType(item));
        }
        return types;
    }

    /**
     * @param text a type name or alias.
     * @return the type.
     */
    public static DataType dataType(final String text)
    {
        switch (text.trim().toLowerCase(Locale.ROOT))
        {
            case "int8":
            case "char":
                return DataType.INT8;
            case "uint8":
                return DataType.UINT8;
            case "int32":
            case "int":
                return DataType.INT32;
            case "int64":
                return DataType.INT64;
            case "float16":
            case "half":
            case "fp16":
                return DataType.FLOAT16;
            case "bfloat16":
            case "bf16":
                return DataType.BFLOAT16;
            case "float32":
            case "float":
            case "fp32":
                return DataType.FLOAT32;
            case "float64":
            case "double":
            case "fp64":
                return DataType.FLOAT64;
            default:
                throw new IllegalArgumentException("unknown data type '" + text +
                    "'; use int8 uint8 int32 int64 float16 bfloat16 float32 float64 (or all)");
        }
    }

    /**
     * The type column: nccl-tests' names ({@code float}, {@code half}, {@code double}, ...), so tools that parse
     * nccl-tests output read ours.
     *
     * @param type the type.
     * @return its nccl-tests name.
     */
    public static String ncclName(final DataType type)
    {
        switch (type)
        {
            case FLOAT16:
                return "half";
            case FLOAT32:
                return "float";
            case FLOAT64:
                return "double";
            default:
                return type.name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * Parses {@code -o}: a comma-separated list of operators, or {@code all} (then each type runs the operators
     * it supports).
     *
     * @param text e.g. {@code sum}, {@code min,max}, {@code all}.
     * @return the operators; empty means all.
     * @throws IllegalArgumentException for an unknown name.
     */
    public static List<ReduceOp> ops(final String text)
    {
        if ("all".equalsIgnoreCase(text.trim()))
        {
            return List.of();
        }
        final List<ReduceOp> ops = new ArrayList<>();
        for (final String item : text.split(","))
        {
            final String name = item.trim().toUpperCase(Locale.ROOT);
            try
            {
                ops.add(ReduceOp.valueOf(name));
            }
            catch (final IllegalArgumentException ex)
            {
                throw new IllegalArgumentException("unknown reduction '" + item +
                    "'; use sum prod min max avg and or xor (or all)", ex);
            }
        }
        return ops;
    }

    /**
     * @param op operator.
     * @return its table name, e.g. {@code sum}.
     */
    public static String opName(final ReduceOp op)
    {
        return op.name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses {@code --algo}.
     *
     * @param text auto, ring, tree, rd (recursive doubling), hd (halving-doubling), oneshot, or a full enum name.
     * @return the algorithm.
     */
    public static Algorithm algorithm(final String text)
    {
        switch (text.trim().toLowerCase(Locale.ROOT))
        {
            case "rd":
                return Algorithm.RECURSIVE_DOUBLING;
            case "hd":
                return Algorithm.HALVING_DOUBLING;
            case "oneshot":
            case "1shot":
                return Algorithm.ONE_SHOT;
            default:
                return Algorithm.parse(text);
        }
    }

    /**
     * @param algorithm algorithm.
     * @return its short name: auto, ring, tree, rd, hd, oneshot.
     */
    public static String algorithmName(final Algorithm algorithm)
    {
        switch (algorithm)
        {
            case RECURSIVE_DOUBLING:
                return "rd";
            case HALVING_DOUBLING:
                return "hd";
            case ONE_SHOT:
                return "oneshot";
            default:
                return algorithm.name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * Parses {@code --transport}.
     *
     * @param text shm, tcp or auto.
     * @return the provider name for {@code CommunicatorContext.transport} (empty for auto: chosen per peer).
     */
    public static String transport(final String text)
    {
        final String name = text.trim().toLowerCase(Locale.ROOT);
        switch (name)
        {
            case "auto":
                return "";
            case "shm":
            case "tcp":
                return name;
            default:
                throw new IllegalArgumentException("unknown transport '" + text + "'; use shm, tcp or auto");
        }
    }
}

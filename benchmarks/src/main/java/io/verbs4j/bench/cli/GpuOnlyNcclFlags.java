// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.cli;

import picocli.CommandLine.Option;

/**
 * The nccl-tests flags that only make sense on a GPU, mixed into {@code coll} so that a command line copied from
 * {@code all_reduce_perf} is refused with the reason, naming the flag, rather than with "Unknown option".
 */
final class GpuOnlyNcclFlags
{
    @Option(names = { "-p", "--parallel_init" }, hidden = true, paramLabel = "0|1")
    private String parallelInit;

    @Option(names = { "-y", "--stream_null" }, hidden = true, paramLabel = "0|1")
    private String streamNull;

    @Option(names = { "-G", "--cudagraph" }, hidden = true, paramLabel = "N")
    private String cudaGraph;

    @Option(names = { "-C", "--report_cputime" }, hidden = true, paramLabel = "0|1")
    private String reportCpuTime;

    @Option(names = { "-R", "--local_register" }, hidden = true, paramLabel = "0|1|2")
    private String localRegister;

    @Option(names = { "-x", "--cta_policy" }, hidden = true, paramLabel = "POLICY")
    private String ctaPolicy;

    @Option(names = { "-D", "--device_implementation" }, hidden = true, paramLabel = "N")
    private String deviceImplementation;

    @Option(names = { "-V", "--device_cta_count" }, hidden = true, paramLabel = "N")
    private String deviceCtaCount;

    @Option(names = { "-M", "--memory" }, hidden = true, paramLabel = "0|1")
    private String memory;

    /**
     * The refusal for the first GPU-only flag given.
     *
     * @return the message naming the flag and why verbs4j has no counterpart, or null when none was given.
     */
    String refusal()
    {
        if (null != parallelInit)
        {
            return "-p/--parallel_init is not supported: it initialises the GPUs of a process in parallel threads; " +
                "a verbs4j rank is one communicator (for ranks as threads use -t N or --threads)";
        }
        if (null != streamNull)
        {
            return "-y/--stream_null is not supported: CUDA streams do not exist on a CPU";
        }
        if (null != cudaGraph)
        {
            return "-G/--cudagraph is not supported: CUDA graphs do not exist on a CPU";
        }
        if (null != reportCpuTime)
        {
            return "-C/--report_cputime is not supported: the time column is always the CPU's wall-clock time " +
                "per call, so -C 1 would print the same figures";
        }
        if (null != localRegister)
        {
            return "-R/--local_register is not supported: coll's buffers are always registered memory " +
                "(Communicator.allocate)";
        }
        if (null != ctaPolicy || null != deviceImplementation || null != deviceCtaCount)
        {
            return (null != ctaPolicy ? "-x/--cta_policy" : null != deviceImplementation ?
                "-D/--device_implementation" : "-V/--device_cta_count") +
                " is not supported: CUDA thread blocks (CTAs) and device kernels do not exist on a CPU";
        }
        if (null != memory)
        {
            return "-M/--memory is not supported: it reports GPU memory use; the buffers here are 2 x the largest " +
                "size per rank";
        }
        return null;
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.cli;

import java.util.Arrays;
import java.util.concurrent.Callable;

import io.verbs4j.bench.shmem.ShmemPerf;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code verbs4j shmem <test>}: NVSHMEM-perftest-style tables for the symmetric heap (two PEs as threads), with
 * same-run baselines; see {@link ShmemPerf}. Bad input exits with 2.
 */
@Command(
    name = "shmem",
    sortOptions = false,
    description = {
        "Symmetric-heap (verbs4j-shmem) latency and bandwidth, NVSHMEM perftest style, with same-run baselines",
        "(cache-line ping-pong or tcp RDMA WRITE for latency, memcpy for bandwidth). Examples:",
        "  verbs4j shmem put_latency -b 8 -e 4096",
        "  verbs4j shmem p_latency --transport tcp",
        "  verbs4j shmem put_bw -b 4K -e 1M -n 2000" })
public final class ShmemCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", description = "put_latency, p_latency, get_latency, atomic_latency, put_bw or get_bw.")
    private String test;

    @Option(names = {"-b", "--minbytes"}, description = "Smallest size (K/M suffixes), default 8.")
    private String minBytes = "8";

    @Option(names = {"-e", "--maxbytes"}, description = "Largest size, default 8 (sizes double).")
    private String maxBytes = "8";

    @Option(names = {"-n", "--iters"}, description = "Timed iterations per size, default 10000.")
    private int iterations = 10_000;

    @Option(names = {"-w", "--warmup"}, description = "Warm-up iterations per size, default 1000.")
    private int warmup = 1_000;

    @Option(names = {"--window"}, description = "Operations per quiet in bandwidth tests, default 64.")
    private int window = 64;

    @Option(names = {"--transport"}, description = "shm (direct peer memory) or tcp (RDMA verbs), default shm.")
    private String transport = "shm";

    /**
     * Runs the test.
     *
     * @return 0 on success, 2 for bad input.
     */
    @Override
    public Integer call()
    {
        final ShmemPerf.Settings settings = new ShmemPerf.Settings();
        settings.test = test;
        settings.transport = transport;
        try
        {
            settings.minBytes = ByteSizes.parse(minBytes);
            settings.maxBytes = ByteSizes.parse(maxBytes);
        }
        catch (final IllegalArgumentException ex)
        {
            spec.commandLine().getErr().println("verbs4j shmem: " + ex.getMessage());
            return CommandLine.ExitCode.USAGE;
        }
        settings.iterations = iterations;
        settings.warmup = warmup;
        settings.window = window;
        if (!Arrays.asList(ShmemPerf.TESTS).contains(test) || settings.minBytes < 1 ||
            settings.maxBytes < settings.minBytes || iterations < 1 || warmup < 0 || window < 1 ||
            !("shm".equals(transport) || "tcp".equals(transport)))
        {
            spec.commandLine().getErr().println("verbs4j shmem: bad arguments (tests: " +
                String.join(", ", ShmemPerf.TESTS) + "; transports: shm, tcp; sizes >= 1, -b <= -e)");
            return CommandLine.ExitCode.USAGE;
        }
        ShmemPerf.run(settings, spec.commandLine().getOut());
        return CommandLine.ExitCode.OK;
    }
}

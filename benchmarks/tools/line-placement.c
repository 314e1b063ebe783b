/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The verbs4j Authors
 *
 * line-placement: how long the same two CPUs take to move different cache lines.
 *
 * Two processes, pinned to CPU 0 and CPU 1, ping-pong a counter on each of NLINES lines of one shared anonymous
 * mapping, one line per 4 KiB page (so each line sits on a physical page of its own), PASSES times over the same
 * lines. It prints each line's one-way time (half the round trip, over the second half of ITERS round trips) per
 * pass, then each page's frame number (read from /proc/self/pagemap; zero unless run as root).
 *
 * Why it exists: latency rows built on a fixed line (the raw cache-line peer, a WRITE ping-pong, a protocol's
 * control lines) draw their figure from where that line lands physically, once per process start. This shows the
 * spread and that it is a property of the line, not of the run: a line's time repeats from pass to pass.
 * See benchmarks/RESULTS.md, session of 2026-12-07 (23:00- UTC).
 *
 * Build and run (not part of the Maven build; Linux, x86-64, gcc):
 *   gcc -O2 -o /tmp/line-placement benchmarks/tools/line-placement.c && /tmp/line-placement 2
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NLINES 64
#define STRIDE 4096
#define ITERS 200000

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (0 != sched_setaffinity(0, sizeof set, &set))
    {
        perror("sched_setaffinity");
        exit(2);
    }
}

static uint64_t frame_of(const void *p)
{
    uint64_t entry = 0;
    const int fd = open("/proc/self/pagemap", O_RDONLY);
    if (fd >= 0)
    {
        if (pread(fd, &entry, sizeof entry, (off_t)(((uintptr_t)p / 4096) * sizeof entry)) != sizeof entry)
        {
            entry = 0;
        }
        close(fd);
    }
    return entry & ((1ull << 55) - 1);
}

/* The value the initiator writes for round trip k (1-based) of line i in pass p; the responder answers with +1. */
static uint64_t base_of(int p, int i)
{
    return ((uint64_t)p * NLINES + (uint64_t)i) * 2 * ITERS;
}

int main(int argc, char **argv)
{
    const int passes = argc > 1 ? atoi(argv[1]) : 2;
    char *m = mmap(0, (size_t)NLINES * STRIDE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (MAP_FAILED == m)
    {
        perror("mmap");
        return 2;
    }
    for (int i = 0; i < NLINES; i++)
    {
        m[(size_t)i * STRIDE] = 0;
    }
    const pid_t child = fork();
    if (0 == child)
    {
        pin(1);
        for (int p = 0; p < passes; p++)
        {
            for (int i = 0; i < NLINES; i++)
            {
                volatile uint64_t *x = (volatile uint64_t *)(m + (size_t)i * STRIDE);
                for (uint64_t k = 1; k <= ITERS; k++)
                {
                    const uint64_t want = base_of(p, i) + 2 * k - 1;
                    while (*x != want)
                    {
                        __builtin_ia32_pause();
                    }
                    *x = want + 1;
                }
            }
        }
        _exit(0);
    }
    pin(0);
    for (int p = 0; p < passes; p++)
    {
        printf("pass %d one-way ns:", p);
        for (int i = 0; i < NLINES; i++)
        {
            volatile uint64_t *x = (volatile uint64_t *)(m + (size_t)i * STRIDE);
            uint64_t start = 0;
            for (uint64_t k = 1; k <= ITERS; k++)
            {
                if (ITERS / 2 == k)
                {
                    start = now_ns();
                }
                *x = base_of(p, i) + 2 * k - 1;
                while (*x != base_of(p, i) + 2 * k)
                {
                    __builtin_ia32_pause();
                }
            }
            printf(" %.0f", (double)(now_ns() - start) / (ITERS / 2 + 1) / 2.0);
        }
        printf("\n");
        fflush(stdout);
    }
    printf("page frames:");
    for (int i = 0; i < NLINES; i++)
    {
        printf(" %llx", (unsigned long long)frame_of(m + (size_t)i * STRIDE));
    }
    printf("\n");
    waitpid(child, 0, 0);
    return 0;
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.measure;

/**
 * One timed row after a warm-up ({@link Warmup#time}).
 *
 * @param elapsedNs this rank's time for the row's calls, in the last attempt.
 * @param attempts  how many times the row was timed (the same on every rank): more than one when a rank's JIT
 *                  compiled during an earlier attempt.
 * @param jitQuiet  no rank's JIT was busy during the attempt that counts (false only when the attempts ran out).
 */
public record TimedRun(long elapsedNs, int attempts, boolean jitQuiet)
{
}

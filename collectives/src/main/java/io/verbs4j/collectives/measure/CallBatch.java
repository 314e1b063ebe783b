// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.measure;

/**
 * The calls a warm-up window runs: {@code calls} collective calls of the size being warmed up, complete on return
 * (non-blocking calls awaited), identical on every rank.
 */
@FunctionalInterface
public interface CallBatch
{
    /**
     * @param calls how many calls to run, at least 1.
     */
    void run(long calls);
}

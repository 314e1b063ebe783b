// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

/**
 * A unit of provider progress that completion-queue polling drives (the way UCX's worker progress runs inside the
 * application's poll). Implementations must be safe to call from any thread and cheap when there is nothing to do;
 * they typically try-lock and return 0 if another thread is already progressing.
 */
@FunctionalInterface
public interface Progress
{
    /** Progress that does nothing. */
    Progress NONE = () -> 0;

    /** @return units of work done; 0 when idle. */
    int progress();
}

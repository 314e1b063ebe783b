// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

/**
 * Every case of {@link DirectSendTest} on queues built for one thread at a time
 * ({@link io.verbs4j.config.ThreadingMode#SINGLE_THREAD}): plain try-locks and release stores must give the same
 * completions, order and slot accounting as the atomic ones.
 */
class SingleThreadDirectSendTest extends DirectSendTest
{
    @Override
    boolean singleThread()
    {
        return true;
    }
}

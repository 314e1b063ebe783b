// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class PostLockTest
{
    private long unguarded;

    @Test
    void shouldLetOneHolderAtATimeIncrementAPlainCounter() throws InterruptedException
    {
        final PostLock lock = new PostLock();
        final int threads = 4;
        final int rounds = 100_000;
        final List<Thread> started = new ArrayList<>();
        for (int t = 0; t < threads; t++)
        {
            final Thread thread = new Thread(() ->
            {
                for (int i = 0; i < rounds; i++)
                {
                    lock.lock();
                    try
                    {
                        unguarded++;
                    }
                    finally
                    {
                        lock.unlock();
                    }
                }
            });
            thread.start();
            started.add(thread);
        }
        for (final Thread thread : started)
        {
            thread.join();
        }
        assertEquals((long)threads * rounds, unguarded, "a lost increment means two holders at once");
    }
}

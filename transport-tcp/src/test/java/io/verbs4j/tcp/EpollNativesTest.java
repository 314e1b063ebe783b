// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * The artifact brings Netty's epoll library for both Linux server architectures (runtime dependencies, so they are
 * on this test's class path as on a user's): without the aarch_64 one, ARM hosts such as AWS Graviton would run on
 * NIO without saying so.
 */
class EpollNativesTest
{
    @Test
    void shouldHaveEpollNativesForX86AndAarch64()
    {
        for (final String arch : List.of("x86_64", "aarch_64"))
        {
            final String library = "META-INF/native/libnetty_transport_native_epoll_" + arch + ".so";
            assertNotNull(EpollNativesTest.class.getClassLoader().getResource(library), library);
        }
    }
}

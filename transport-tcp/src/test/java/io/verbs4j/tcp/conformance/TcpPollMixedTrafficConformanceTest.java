// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp.conformance;

import java.util.Map;

import io.verbs4j.conformance.AbstractMixedTrafficConformanceTest;

/**
 * The mixed two-way stress over tcp in polling mode: completion-queue polling reads the sockets (and the I/O thread's
 * backstop too), so two threads produce each connection's responses and acknowledgements; direct writes off, so
 * every frame reaches the socket through the I/O thread.
 */
class TcpPollMixedTrafficConformanceTest extends AbstractMixedTrafficConformanceTest
{
    @Override
    protected String providerName()
    {
        return "tcp";
    }

    @Override
    protected Map<String, String> modeProperties()
    {
        return Map.of("verbs4j.tcp.mode", "poll", "verbs4j.tcp.direct.write", "false");
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp.conformance;

import java.util.Map;

import io.verbs4j.conformance.AbstractMixedTrafficConformanceTest;

/**
 * The mixed two-way stress over tcp in event mode (epoll here, event-driven I/O threads) with direct writes from
 * posting threads on (the default, said explicitly; {@code TcpIoThreadWritesMixedTrafficConformanceTest} runs them
 * off).
 */
class TcpEventMixedTrafficConformanceTest extends AbstractMixedTrafficConformanceTest
{
    @Override
    protected String providerName()
    {
        return "tcp";
    }

    @Override
    protected Map<String, String> modeProperties()
    {
        return Map.of("verbs4j.tcp.direct.write", "true");
    }
}

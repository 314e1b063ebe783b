// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp.conformance;

import java.util.Map;

import io.verbs4j.conformance.AbstractMixedTrafficConformanceTest;

/** The mixed two-way stress over tcp with NIO sockets (no direct reads or writes, no polling mode). */
class TcpNioMixedTrafficConformanceTest extends AbstractMixedTrafficConformanceTest
{
    @Override
    protected String providerName()
    {
        return "tcp";
    }

    @Override
    protected Map<String, String> modeProperties()
    {
        return Map.of("verbs4j.tcp.transport", "nio");
    }
}

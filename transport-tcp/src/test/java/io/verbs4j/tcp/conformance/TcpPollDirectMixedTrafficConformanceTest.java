// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp.conformance;

import java.util.Map;

import io.verbs4j.conformance.AbstractMixedTrafficConformanceTest;

/**
 * The mixed two-way stress over tcp in polling mode with direct writes on: posting and polling threads write requests
 * and acknowledgements straight to the socket, besides the I/O thread.
 */
class TcpPollDirectMixedTrafficConformanceTest extends AbstractMixedTrafficConformanceTest
{
    @Override
    protected String providerName()
    {
        return "tcp";
    }

    @Override
    protected Map<String, String> modeProperties()
    {
        return Map.of("verbs4j.tcp.mode", "poll", "verbs4j.tcp.direct.write", "true");
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp.conformance;

import java.util.Map;

import io.verbs4j.conformance.AbstractMixedTrafficConformanceTest;

/**
 * The mixed two-way stress over tcp in the default mode (epoll here, event-driven I/O threads, direct writes from
 * posting threads).
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
        return Map.of();
    }
}

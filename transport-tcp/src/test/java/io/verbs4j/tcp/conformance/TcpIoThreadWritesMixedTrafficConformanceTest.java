// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp.conformance;

import java.util.Map;

import io.verbs4j.conformance.AbstractMixedTrafficConformanceTest;

/**
 * The mixed two-way stress over tcp in event mode with direct writes off: the I/O thread writes every frame (the
 * opt-out of {@code TcpConfiguration.DIRECT_WRITE_DEFAULT}).
 */
class TcpIoThreadWritesMixedTrafficConformanceTest extends AbstractMixedTrafficConformanceTest
{
    @Override
    protected String providerName()
    {
        return "tcp";
    }

    @Override
    protected Map<String, String> modeProperties()
    {
        return Map.of("verbs4j.tcp.direct.write", "false");
    }
}

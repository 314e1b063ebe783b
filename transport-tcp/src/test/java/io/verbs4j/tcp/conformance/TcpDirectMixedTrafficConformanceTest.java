// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp.conformance;

import java.util.Map;

import io.verbs4j.conformance.AbstractMixedTrafficConformanceTest;

/**
 * The mixed two-way stress over tcp in event mode with direct writes on: posting threads write requests (and the
 * deferred ACKs riding along) straight to the socket while the I/O thread writes responses.
 */
class TcpDirectMixedTrafficConformanceTest extends AbstractMixedTrafficConformanceTest
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

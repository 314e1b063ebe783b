// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp.conformance;

import java.util.Map;

import io.verbs4j.conformance.AbstractMixedTrafficConformanceTest;
import org.junit.jupiter.api.AfterAll;

/** The mixed two-way stress over tcp with TLS on both sides: every frame goes through the SslHandler. */
class TcpTlsMixedTrafficConformanceTest extends AbstractMixedTrafficConformanceTest
{
    @Override
    protected String providerName()
    {
        return "tcp";
    }

    @Override
    protected Map<String, String> modeProperties()
    {
        return TlsConformanceStores.properties();
    }

    @AfterAll
    static void deleteStores()
    {
        TlsConformanceStores.delete();
    }
}

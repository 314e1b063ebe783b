// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp.conformance;

import java.util.Map;

import io.verbs4j.conformance.AbstractConnectionConformanceTest;
import org.junit.jupiter.api.AfterAll;

/**
 * The Connection conformance suite over tcp with TLS on both sides (and a peer in a separate JVM): every byte goes
 * through the SslHandler, so the zero-copy paths are off and the frame decoder works on decrypted buffers.
 */
class TcpTlsConnectionConformanceTest extends AbstractConnectionConformanceTest
{
    @Override
    protected String providerName()
    {
        return "tcp";
    }

    @Override
    protected Map<String, String> deviceProperties()
    {
        return TlsConformanceStores.properties();
    }

    @AfterAll
    static void deleteStores()
    {
        TlsConformanceStores.delete();
    }
}

package io.verbs4j.tcp.conformance;

import java.util.Map;

import io.verbs4j.conformance.AbstractConnectionConformanceTest;
import io.verbs4j.tcp.TlsFixture;
import org.junit.jupiter.api.AfterAll;

/**
 * The Connection conformance suite over tcp with TLS on both sides (and a peer in a separate JVM): every byte goes
 * through the SslHandler, so the zero-copy paths are off and the frame decoder works on decrypted buffers.
 */
class TcpTlsConnectionConformanceTest extends AbstractConnectionConformanceTest
{
    private static TlsFixture tls;

    @Override
    protected String providerName()
    {
        return "tcp";
    }

    @Override
    protected Map<String, String> deviceProperties()
    {
        synchronized (TcpTlsConnectionConformanceTest.class)
        {
            if (null == tls)
            {
                tls = new TlsFixture();
            }
            return tls.properties();
        }
    }

    @AfterAll
    static void deleteStores()
    {
        synchronized (TcpTlsConnectionConformanceTest.class)
        {
            if (null != tls)
            {
                tls.close();
                tls = null;
            }
        }
    }
}

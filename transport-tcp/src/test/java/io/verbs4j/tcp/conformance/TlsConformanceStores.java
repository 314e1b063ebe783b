// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp.conformance;

import java.util.Map;

import io.verbs4j.tcp.TlsFixture;

/**
 * The TLS key and trust stores the TLS conformance classes share: made on first use, deleted when a class is done
 * (the next class makes new ones).
 */
final class TlsConformanceStores
{
    private static TlsFixture tls;

    private TlsConformanceStores()
    {
    }

    /** @return the device properties that turn TLS on with the current stores, making them if needed. */
    static synchronized Map<String, String> properties()
    {
        if (null == tls)
        {
            tls = new TlsFixture();
        }
        return tls.properties();
    }

    /** Deletes the stores, if any. */
    static synchronized void delete()
    {
        if (null != tls)
        {
            tls.close();
            tls = null;
        }
    }
}

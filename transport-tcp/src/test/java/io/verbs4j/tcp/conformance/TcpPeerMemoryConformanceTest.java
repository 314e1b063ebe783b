// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp.conformance;

import io.verbs4j.conformance.AbstractPeerMemoryConformanceTest;

/** tcp does not advertise direct peer-memory access: mapRemote must refuse, naming the capability. */
class TcpPeerMemoryConformanceTest extends AbstractPeerMemoryConformanceTest
{
    @Override
    protected String providerName()
    {
        return "tcp";
    }
}

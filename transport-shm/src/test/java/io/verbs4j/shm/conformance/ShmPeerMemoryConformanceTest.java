// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm.conformance;

import io.verbs4j.conformance.AbstractPeerMemoryConformanceTest;

/** Direct peer-memory access over shm, against a peer in a separate JVM. */
class ShmPeerMemoryConformanceTest extends AbstractPeerMemoryConformanceTest
{
    @Override
    protected String providerName()
    {
        return "shm";
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm.conformance;

import io.verbs4j.conformance.AbstractPeerFailureConformanceTest;

/** The PeerFailure conformance suite over shm, against a peer in a separate JVM. */
class ShmPeerFailureConformanceTest extends AbstractPeerFailureConformanceTest
{
    @Override
    protected String providerName()
    {
        return "shm";
    }
}

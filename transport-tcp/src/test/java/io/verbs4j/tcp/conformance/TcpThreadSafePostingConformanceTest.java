// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp.conformance;

import io.verbs4j.conformance.AbstractThreadSafePostingConformanceTest;

/** Thread-safe posting over tcp, against a peer in a separate JVM. */
class TcpThreadSafePostingConformanceTest extends AbstractThreadSafePostingConformanceTest
{
    @Override
    protected String providerName()
    {
        return "tcp";
    }
}

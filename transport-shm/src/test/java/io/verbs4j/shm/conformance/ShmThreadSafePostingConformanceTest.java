// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm.conformance;

import io.verbs4j.conformance.AbstractThreadSafePostingConformanceTest;

/** Thread-safe posting over shm, against a peer in a separate JVM. */
class ShmThreadSafePostingConformanceTest extends AbstractThreadSafePostingConformanceTest
{
    @Override
    protected String providerName()
    {
        return "shm";
    }
}

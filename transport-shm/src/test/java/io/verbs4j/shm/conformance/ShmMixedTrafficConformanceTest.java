// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm.conformance;

import java.util.Map;

import io.verbs4j.conformance.AbstractMixedTrafficConformanceTest;

/** The mixed two-way stress over shm with each device's progress agent running (the default). */
class ShmMixedTrafficConformanceTest extends AbstractMixedTrafficConformanceTest
{
    @Override
    protected String providerName()
    {
        return "shm";
    }

    @Override
    protected Map<String, String> modeProperties()
    {
        return Map.of();
    }
}

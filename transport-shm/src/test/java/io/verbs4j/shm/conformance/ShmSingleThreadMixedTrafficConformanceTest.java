// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm.conformance;

import java.util.Map;

import io.verbs4j.config.CoreConfiguration;
import io.verbs4j.conformance.AbstractMixedTrafficConformanceTest;

/**
 * The mixed two-way stress over shm in the SINGLE_THREAD threading mode: no progress agents, and every call on each
 * device from one thread at a time, so the work queues, the completion queues, the progress and the send side run
 * without a locked instruction. With assertions on, a device found driven by two threads at once fails.
 */
class ShmSingleThreadMixedTrafficConformanceTest extends AbstractMixedTrafficConformanceTest
{
    @Override
    protected String providerName()
    {
        return "shm";
    }

    @Override
    protected Map<String, String> modeProperties()
    {
        return Map.of(CoreConfiguration.THREADING_MODE_PROP_NAME, "single_thread");
    }
}

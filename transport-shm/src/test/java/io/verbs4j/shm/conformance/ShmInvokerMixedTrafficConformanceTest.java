// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm.conformance;

import java.util.Map;

import io.verbs4j.config.CoreConfiguration;
import io.verbs4j.conformance.AbstractMixedTrafficConformanceTest;

/**
 * The mixed two-way stress over shm in the INVOKER threading mode, without progress agents: only completion-queue
 * polling drives each device. (Before the threading mode existed this class set {@code verbs4j.progress.thread} as a
 * provider property, which the device context ignored, so it ran with agents.)
 */
class ShmInvokerMixedTrafficConformanceTest extends AbstractMixedTrafficConformanceTest
{
    @Override
    protected String providerName()
    {
        return "shm";
    }

    @Override
    protected Map<String, String> modeProperties()
    {
        return Map.of(CoreConfiguration.THREADING_MODE_PROP_NAME, "invoker");
    }
}

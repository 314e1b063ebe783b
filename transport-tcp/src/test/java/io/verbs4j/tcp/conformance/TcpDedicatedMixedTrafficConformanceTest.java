// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp.conformance;

import java.util.Map;

import io.verbs4j.config.CoreConfiguration;
import io.verbs4j.conformance.AbstractMixedTrafficConformanceTest;

/**
 * The mixed two-way stress over tcp in the DEDICATED threading mode: only the device's own threads drive progress,
 * completion-queue polls only take completions.
 */
class TcpDedicatedMixedTrafficConformanceTest extends AbstractMixedTrafficConformanceTest
{
    @Override
    protected String providerName()
    {
        return "tcp";
    }

    @Override
    protected Map<String, String> modeProperties()
    {
        return Map.of(CoreConfiguration.THREADING_MODE_PROP_NAME, "dedicated");
    }
}

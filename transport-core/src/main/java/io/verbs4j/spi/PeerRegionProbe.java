// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

/**
 * How a provider tells a {@link MappedRemoteMemory} whether the peer region it maps is still the one that was
 * checked at mapping time: registered under the same rkey, owner alive and connected. Called on every checked
 * access, so it must be cheap (one volatile load of the peer's region-table entry and a flag) and allocation-free.
 */
public interface PeerRegionProbe
{
    /** @return {@link io.verbs4j.WcStatus#SUCCESS}, or the status a one-sided verb would complete with now. */
    int status();

    /**
     * @param status a status {@link #status()} returned.
     * @return why, for the exception (setup-rate: called only on failure).
     */
    String describe(int status);
}

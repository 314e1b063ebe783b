// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.measure;

import java.util.Locale;

/**
 * What the warm-up of one size did: for the tools' JSON rows and footers.
 *
 * @param exact          an exact count was asked (no stability rule).
 * @param calls          calls run.
 * @param elapsedNs      time from the first call to the decision to stop.
 * @param windows        windows run.
 * @param stable         the last windows agreed (always true for exact warm-ups); false: the cap ended it.
 * @param lastNsPerCall  mean per-call time of the last window (NaN when no call ran).
 */
public record WarmupResult(boolean exact, long calls, long elapsedNs, int windows, boolean stable,
    double lastNsPerCall)
{
    /** @return how it ended: {@code exact}, {@code stable} or {@code capped}. */
    public String outcome()
    {
        return exact ? "exact" : (stable ? "stable" : "capped");
    }

    /** @return e.g. {@code 21344 calls in 0.31 s, stable}. */
    public String describe()
    {
        return String.format(Locale.ROOT, "%d calls in %.2f s, %s", calls, elapsedNs / 1e9, outcome());
    }
}

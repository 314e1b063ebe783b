// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class TcpTickPeriodTest
{
    @Test
    void shouldDoubleUpToTheBoundWhilePollersPollAndReturnToTheBaseWhenTheyStop()
    {
        final TcpTickPeriod period = new TcpTickPeriod(200, 8);
        assertEquals(200, period.periodNs());
        assertEquals(400, period.backOff());
        assertEquals(800, period.backOff());
        assertEquals(1600, period.backOff());
        assertEquals(1600, period.backOff(), "never past the bound");
        assertEquals(1600, period.maxNs());
        assertEquals(200, period.reset());
        assertEquals(400, period.backOff(), "backs off from the base again");
    }

    @Test
    void shouldKeepTheBaseWhenNoBackOffIsAllowed()
    {
        final TcpTickPeriod period = new TcpTickPeriod(200, 1);
        assertEquals(200, period.backOff());
    }

    @Test
    void shouldRefuseAPeriodThatIsNotPositive()
    {
        assertThrows(IllegalArgumentException.class, () -> new TcpTickPeriod(0, 8));
        assertThrows(IllegalArgumentException.class, () -> new TcpTickPeriod(200, 0));
    }
}

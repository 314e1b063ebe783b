// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AccessAndVerbsTest
{
    @Test
    void shouldValidateAccessFlagsLikeVerbs()
    {
        assertEquals(Access.ALL, Access.validate(Access.ALL));
        assertEquals(Access.REMOTE_READ, Access.validate(Access.REMOTE_READ));
        assertThrows(IllegalArgumentException.class, () -> Access.validate(Access.REMOTE_ATOMIC));
        assertThrows(IllegalArgumentException.class, () -> Access.validate(64));
        assertEquals("LOCAL_WRITE|REMOTE_READ", Access.toString(Access.LOCAL_WRITE | Access.REMOTE_READ));
    }

    @Test
    void shouldNameStatusesAndOpcodes()
    {
        assertEquals("REM_ACCESS_ERR", WcStatus.name(WcStatus.REM_ACCESS_ERR));
        assertEquals("WR_FLUSH_ERR", WcStatus.name(5));
        assertEquals("UNKNOWN(99)", WcStatus.name(99));
        assertEquals("RDMA_WRITE_WITH_IMM", Opcode.name(Opcode.RDMA_WRITE_WITH_IMM));
        assertTrue(QueuePair.describe(QueuePair.BACK_PRESSURED).startsWith("BACK_PRESSURED"));
    }

    @Test
    void shouldNameInstalledProvidersWhenOneIsMissing()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> Verbs.open("nosuch"));
        assertTrue(ex.getMessage().contains("nosuch") && ex.getMessage().contains("installed"), ex.getMessage());
    }

    @Test
    void shouldRefuseAQueuePairConfigBeyondTheDeviceLimits()
    {
        final Capabilities caps = new Capabilities(Capabilities.MSG, 1 << 20, 4, 64, 128, 1024, 1 << 30, 256);
        final QueuePairConfig config = new QueuePairConfig(new io.verbs4j.spi.BaseCompletionQueue(this, 8,
            io.verbs4j.spi.Progress.NONE, new org.agrona.concurrent.BackoffIdleStrategy())).maxSendSge(5);
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> config.validate(caps));
        assertTrue(ex.getMessage().contains("maxSendSge"), ex.getMessage());
    }
}

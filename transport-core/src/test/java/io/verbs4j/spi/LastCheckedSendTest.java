// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import java.nio.ByteBuffer;

import io.verbs4j.Access;
import io.verbs4j.Opcode;
import io.verbs4j.SendRequest;
import org.agrona.BufferUtil;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link LastCheckedSend}'s invariant: a match only for the same object with the same shape (opcode, INLINE/INJECT,
 * SGEs), never for an atomic, never once a resolved region closed; what the checks do not read may change.
 */
class LastCheckedSendTest
{
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(256);
    private final AbstractMemoryRegion region = new AbstractMemoryRegion(new BareDevice(0, null).domain(),
        RegionMemory.contiguous(BufferUtil.address(buffer), 256, buffer), 0x1000, 7, 8, Access.LOCAL_WRITE)
    {
        protected void release()
        {
        }
    };

    private SendRequest write()
    {
        return new SendRequest(2).opcode(Opcode.RDMA_WRITE).flags(SendRequest.SIGNALED | SendRequest.INLINE)
            .sge(0x1000, 8, 7).remote(0x9000, 3);
    }

    private LastCheckedSend remembered(final SendRequest request)
    {
        final LastCheckedSend last = new LastCheckedSend(2);
        last.regions()[0] = region;
        last.offsets()[0] = 0;
        last.remember(request);
        return last;
    }

    @Test
    void shouldMatchTheSameRequestWhileOnlyWhatTheChecksDoNotReadChanges()
    {
        final SendRequest request = write();
        final LastCheckedSend last = remembered(request);
        assertTrue(last.matches(request));
        request.wrId(42).flags(SendRequest.INLINE).remote(0xA000, 4).immediateData(5).atomic(1, 2);
        assertTrue(last.matches(request), "wrId, SIGNALED, remote, immediate and operands are not checked at post");
        assertSame(region, last.regions()[0]);
        assertFalse(last.matches(write()), "another object with the same contents");
    }

    @Test
    void shouldNotMatchOnceTheShapeChanged()
    {
        final java.util.List<java.util.function.Consumer<SendRequest>> changes = java.util.List.of(
            r -> r.opcode(Opcode.RDMA_READ),
            r -> r.flags(SendRequest.SIGNALED),
            r -> r.flags(SendRequest.SIGNALED | SendRequest.INLINE | SendRequest.INJECT),
            r -> r.sgeLength(0, 9),
            r -> r.sgeLength(0, 8),
            r -> r.sgeAddress(0, 0x1008),
            r -> r.sge(0x1010, 8, 7),
            r -> r.clearSges().sge(0x1000, 8, 7),
            r -> r.opcode(Opcode.SEND).opcode(Opcode.RDMA_WRITE));
        for (int i = 0; i < changes.size(); i++)
        {
            final SendRequest request = write();
            final LastCheckedSend last = remembered(request);
            assertTrue(last.matches(request));
            changes.get(i).accept(request);
            assertFalse(last.matches(request), "change " + i + " (setting a value again, or changing it and back, " +
                "counts as a change)");
        }
        final SendRequest request = write();
        final LastCheckedSend last = remembered(request);
        request.opcode(Opcode.RDMA_WRITE).flags(SendRequest.SIGNALED | SendRequest.INLINE);
        assertTrue(last.matches(request), "setting the opcode and flags it already has changes nothing");
    }

    @Test
    void shouldNeverRememberAnAtomicAndForgetAClosedRegion()
    {
        final SendRequest atomic = new SendRequest(1).opcode(Opcode.ATOMIC_FETCH_AND_ADD).sge(0x1000, 8, 7)
            .remote(0x9000, 3);
        assertFalse(remembered(atomic).matches(atomic), "its checks read the remote address");
        final SendRequest request = write();
        final LastCheckedSend last = remembered(request);
        assertTrue(last.matches(request));
        region.close();
        assertFalse(last.matches(request), "a region closed since the checks");
    }
}

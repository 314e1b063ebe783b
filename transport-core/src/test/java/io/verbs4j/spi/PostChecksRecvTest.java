// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import java.nio.ByteBuffer;

import io.verbs4j.Access;
import io.verbs4j.QueuePair;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.RecvRequest;
import io.verbs4j.WcStatus;
import org.agrona.BufferUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * {@link PostChecks#resolveRecvSges}'s reuse of the receive it resolved last: the scratch arrays always hold the
 * resolution of the request being posted, whether it was resolved again or reused; a reuse only for the same object
 * with the same SGEs and every region still open; a failed resolution is never reused.
 */
class PostChecksRecvTest
{
    private static final int LKEY = 7;
    private static final int OTHER_LKEY = 9;
    private static final long ADDRESS = 0x1000;
    private static final long OTHER_ADDRESS = 0x8000;

    private final BareDevice device = new BareDevice(0, null);
    private final AbstractProtectionDomain pd = device.domain();
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(256);
    private final ByteBuffer otherBuffer = ByteBuffer.allocateDirect(256);
    private final PostChecks checks = new PostChecks(
        new QueuePairConfig(device.createCompletionQueue(16)).maxRecvSge(2), device.capabilities(), pd.keys());

    private AbstractMemoryRegion region(final ByteBuffer memory, final long address, final int lkey, final int access)
    {
        final AbstractMemoryRegion region = new AbstractMemoryRegion(
            pd, RegionMemory.contiguous(BufferUtil.address(memory), 256, memory), address, lkey, lkey + 1, access)
        {
            protected void release()
            {
            }
        };
        pd.keys().add(region);
        return region;
    }

    @AfterEach
    void closeDevice()
    {
        device.close();
    }

    @Test
    void shouldHoldTheResolutionOfTheRequestPostedWhetherReusedOrNot()
    {
        final AbstractMemoryRegion region = region(buffer, ADDRESS, LKEY, Access.LOCAL_WRITE);
        final AbstractMemoryRegion other = region(otherBuffer, OTHER_ADDRESS, OTHER_LKEY, Access.LOCAL_WRITE);
        final RecvRequest first = new RecvRequest(2).sge(ADDRESS + 16, 32, LKEY);
        final RecvRequest second = new RecvRequest(2).sge(OTHER_ADDRESS + 64, 8, OTHER_LKEY).sge(ADDRESS, 4, LKEY);
        for (int round = 0; round < 3; round++)
        {
            assertEquals(WcStatus.SUCCESS, checks.resolveRecvSges(first.wrId(round)));
            assertResolved(0, region, 16, 32);
            assertEquals(WcStatus.SUCCESS, checks.resolveRecvSges(first), "posted again: reused");
            assertResolved(0, region, 16, 32);
            assertEquals(WcStatus.SUCCESS, checks.resolveRecvSges(second), "another request in between");
            assertResolved(0, other, 64, 8);
            assertResolved(1, region, 0, 4);
        }
    }

    @Test
    void shouldResolveAgainOnceTheSgesChanged()
    {
        final AbstractMemoryRegion region = region(buffer, ADDRESS, LKEY, Access.LOCAL_WRITE);
        final RecvRequest request = new RecvRequest(3).sge(ADDRESS, 8, LKEY);
        assertEquals(WcStatus.SUCCESS, checks.resolveRecvSges(request));
        request.sgeAddress(0, ADDRESS + 100);
        assertEquals(WcStatus.SUCCESS, checks.resolveRecvSges(request));
        assertResolved(0, region, 100, 8);
        request.sgeAddress(0, ADDRESS + 250);
        assertEquals(WcStatus.LOC_PROT_ERR, checks.resolveRecvSges(request), "8 bytes past the region's end");
        request.clearSges().sge(ADDRESS, 16, LKEY).sge(ADDRESS + 16, 16, LKEY);
        assertEquals(WcStatus.SUCCESS, checks.resolveRecvSges(request));
        assertResolved(0, region, 0, 16);
        assertResolved(1, region, 16, 16);
        request.clearSges().sge(ADDRESS, 8, LKEY).sge(ADDRESS, 8, LKEY).sge(ADDRESS, 8, LKEY);
        assertEquals(QueuePair.INVALID_REQUEST, checks.resolveRecvSges(request), "more SGEs than the queue pair's");
    }

    @Test
    void shouldNotReuseAResolutionOnceItsRegionClosed()
    {
        final AbstractMemoryRegion region = region(buffer, ADDRESS, LKEY, Access.LOCAL_WRITE);
        final RecvRequest request = new RecvRequest(1).sge(ADDRESS, 8, LKEY);
        assertEquals(WcStatus.SUCCESS, checks.resolveRecvSges(request));
        region.close();
        assertEquals(WcStatus.LOC_PROT_ERR, checks.resolveRecvSges(request));
        assertNull(checks.recvRegions()[0]);
        final AbstractMemoryRegion again = region(otherBuffer, ADDRESS, LKEY, Access.LOCAL_WRITE);
        assertEquals(WcStatus.SUCCESS, checks.resolveRecvSges(request), "a new region under the same key");
        assertResolved(0, again, 0, 8);
    }

    @Test
    void shouldNeverReuseAFailedResolution()
    {
        final RecvRequest request = new RecvRequest(1).sge(ADDRESS, 8, LKEY);
        assertEquals(WcStatus.LOC_PROT_ERR, checks.resolveRecvSges(request), "no region has the key yet");
        final AbstractMemoryRegion region = region(buffer, ADDRESS, LKEY, Access.LOCAL_WRITE);
        assertEquals(WcStatus.SUCCESS, checks.resolveRecvSges(request));
        assertResolved(0, region, 0, 8);
        final RecvRequest readOnly = new RecvRequest(1).sge(OTHER_ADDRESS, 8, OTHER_LKEY);
        region(otherBuffer, OTHER_ADDRESS, OTHER_LKEY, Access.REMOTE_READ);
        assertEquals(WcStatus.LOC_PROT_ERR, checks.resolveRecvSges(readOnly), "no LOCAL_WRITE");
        assertEquals(WcStatus.LOC_PROT_ERR, checks.resolveRecvSges(readOnly), "and still none");
    }

    private void assertResolved(final int sge, final AbstractMemoryRegion region, final long offset, final int length)
    {
        assertSame(region, checks.recvRegions()[sge], "SGE " + sge + "'s region");
        assertEquals(offset, checks.recvOffsets()[sge], "SGE " + sge + "'s offset");
        assertEquals(length, checks.recvLengths()[sge], "SGE " + sge + "'s length");
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import io.verbs4j.Access;
import io.verbs4j.Capabilities;
import io.verbs4j.Opcode;
import io.verbs4j.QueuePair;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.RecvRequest;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;

/**
 * What a queue pair checks when a request is posted, as ibverbs does: the request's shape against the queue pair's
 * attributes and the device's capabilities (refused at post: {@link QueuePair#INVALID_REQUEST},
 * {@link QueuePair#NOT_SUPPORTED}), then each SGE's lkey, bounds and access (a {@link WcStatus#LOC_PROT_ERR}
 * completion). The send checks are used by the thread posting sends, the receive checks by the thread posting
 * receives; each side has its own lkey cache and scratch arrays, so the two may run at once.
 */
final class PostChecks
{
    private final QueuePairConfig config;
    private final Capabilities capabilities;
    private final LkeyCache sendKeys;
    private final LkeyCache recvKeys;
    private final AbstractMemoryRegion[] recvRegions;
    private final long[] recvOffsets;
    private final int[] recvLengths;
    /** The receive resolved last with every SGE valid, while its scratch arrays still hold that resolution. */
    private RecvRequest resolvedRecv;
    private long resolvedRecvVersion;

    /**
     * @param config       the queue pair's attributes.
     * @param capabilities the device's capabilities.
     * @param keys         the protection domain's key table.
     */
    PostChecks(final QueuePairConfig config, final Capabilities capabilities, final KeyTable keys)
    {
        this.config = config;
        this.capabilities = capabilities;
        this.sendKeys = new LkeyCache(keys);
        this.recvKeys = new LkeyCache(keys);
        recvRegions = new AbstractMemoryRegion[config.maxRecvSge()];
        recvOffsets = new long[config.maxRecvSge()];
        recvLengths = new int[config.maxRecvSge()];
    }

    /**
     * Checks a send's shape: opcode, SGE count and lengths, message size, inline and inject limits, atomic operands.
     *
     * @param request the request.
     * @return {@link QueuePair#OK}, or the refusal.
     */
    int validateSend(final SendRequest request)
    {
        final int opcode = request.opcode();
        if (opcode < 0 || opcode >= Opcode.SEND_OPCODE_COUNT)
        {
            return QueuePair.INVALID_REQUEST;
        }
        if (!capabilities.supportsOpcode(opcode))
        {
            return QueuePair.NOT_SUPPORTED;
        }
        final int count = request.sgeCount();
        if (count > config.maxSendSge())
        {
            return QueuePair.INVALID_REQUEST;
        }
        long total = 0;
        for (int i = 0; i < count; i++)
        {
            final int length = request.sgeLength(i);
            if (length < 0)
            {
                return QueuePair.INVALID_REQUEST;
            }
            total += length;
        }
        if (total > capabilities.maxMessageLength())
        {
            return QueuePair.INVALID_REQUEST;
        }
        final int flags = request.flags();
        if (0 != (flags & (SendRequest.INLINE | SendRequest.INJECT)))
        {
            if ((0 != (flags & SendRequest.INLINE) && !capabilities.has(Capabilities.INLINE)) ||
                (0 != (flags & SendRequest.INJECT) && !capabilities.has(Capabilities.INJECT)))
            {
                return QueuePair.NOT_SUPPORTED;
            }
            if (total > config.maxInlineLength() || Opcode.writesLocalMemory(opcode))
            {
                // READ and atomics write a result locally: nothing to copy at post, and INJECT could not report it.
                return QueuePair.INVALID_REQUEST;
            }
        }
        if (Opcode.isAtomic(opcode))
        {
            if (1 != count || 8 != request.sgeLength(0) || 0 != (request.remoteAddress() & 7) ||
                0 != (request.sgeAddress(0) & 7))
            {
                return QueuePair.INVALID_REQUEST;
            }
        }
        return QueuePair.OK;
    }

    /**
     * Resolves a send's SGEs (validated by {@link #validateSend}) to regions and offsets.
     *
     * @param request the request.
     * @param regions filled with each SGE's region (null for one that failed).
     * @param offsets filled with each SGE's offset in its region.
     * @return SUCCESS, or LOC_PROT_ERR when an SGE has an unknown lkey, leaves its region or lacks LOCAL_WRITE for
     *         an opcode that writes local memory.
     */
    int resolveSendSges(
        final SendRequest request, final AbstractMemoryRegion[] regions, final long[] offsets)
    {
        final boolean needsLocalWrite = Opcode.writesLocalMemory(request.opcode());
        int status = WcStatus.SUCCESS;
        for (int i = 0, n = request.sgeCount(); i < n; i++)
        {
            final AbstractMemoryRegion region = sendKeys.byLkey(request.sgeLkey(i));
            final long offset = null == region ? -1 : region.offsetOf(request.sgeAddress(i), request.sgeLength(i));
            if (offset < 0 || (needsLocalWrite && 0 == (region.access() & Access.LOCAL_WRITE)))
            {
                status = WcStatus.LOC_PROT_ERR;
                regions[i] = null;
                offsets[i] = 0;
            }
            else
            {
                regions[i] = region;
                offsets[i] = offset;
            }
        }
        return status;
    }

    /**
     * Checks a receive's shape and resolves its SGEs into the receive scratch arrays.
     *
     * @return {@link QueuePair#QueuePair.INVALID_REQUEST} (negative), or the local status: SUCCESS or LOC_PROT_ERR.
     */
    int resolveRecvSges(final RecvRequest request)
    {
        final int count = request.sgeCount();
        if (request == resolvedRecv && request.shapeVersion() == resolvedRecvVersion &&
            AbstractMemoryRegion.allOpen(recvRegions, count))
        {
            return WcStatus.SUCCESS;
        }
        resolvedRecv = null;
        if (count > config.maxRecvSge())
        {
            return QueuePair.INVALID_REQUEST;
        }
        int localStatus = WcStatus.SUCCESS;
        for (int i = 0; i < count; i++)
        {
            final int length = request.sgeLength(i);
            if (length < 0)
            {
                return QueuePair.INVALID_REQUEST;
            }
            recvLengths[i] = length;
            final AbstractMemoryRegion region = recvKeys.byLkey(request.sgeLkey(i));
            final long offset = null == region ? -1 : region.offsetOf(request.sgeAddress(i), length);
            if (offset < 0 || 0 == (region.access() & Access.LOCAL_WRITE))
            {
                localStatus = WcStatus.LOC_PROT_ERR;
                recvRegions[i] = null;
                recvOffsets[i] = 0;
                recvLengths[i] = 0;
            }
            else
            {
                recvRegions[i] = region;
                recvOffsets[i] = offset;
            }
        }
        if (WcStatus.SUCCESS == localStatus)
        {
            resolvedRecv = request;
            resolvedRecvVersion = request.shapeVersion();
        }
        return localStatus;
    }

    /** @return the regions of the last {@link #resolveRecvSges} (null for an SGE that failed). */
    AbstractMemoryRegion[] recvRegions()
    {
        return recvRegions;
    }

    /** @return the offsets of the last {@link #resolveRecvSges}. */
    long[] recvOffsets()
    {
        return recvOffsets;
    }

    /** @return the lengths of the last {@link #resolveRecvSges} (0 for an SGE that failed). */
    int[] recvLengths()
    {
        return recvLengths;
    }
}

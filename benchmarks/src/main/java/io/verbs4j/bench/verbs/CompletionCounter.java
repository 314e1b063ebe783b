// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.verbs;

import io.verbs4j.CompletionHandler;
import io.verbs4j.Opcode;
import io.verbs4j.WcStatus;

import java.io.IOException;

/**
 * Counts completions without allocating: receive completions by number, send-side completions by the highest
 * {@code wrId} seen (the benchmarks number their send requests 1, 2, 3 ... and signal only some, so a completion for
 * {@code wrId = n} means the first {@code n} are done: completions come in posting order). The first failed
 * completion is kept and turned into an exception by {@link #check()}.
 */
final class CompletionCounter implements CompletionHandler
{
    private long lastSendWrId;
    private long receives;
    private int receivedBytes;
    private boolean failed;
    private long failedWrId;
    private int failedStatus;
    private int failedOpcode;

    /**
     * {@inheritDoc}
     */
    @Override
    public void onCompletion(
        final long wrId,
        final int status,
        final int opcode,
        final int byteLength,
        final int immediateData,
        final int flags,
        final int qpNumber)
    {
        if (WcStatus.SUCCESS != status)
        {
            if (!failed)
            {
                failed = true;
                failedWrId = wrId;
                failedStatus = status;
                failedOpcode = opcode;
            }
            return;
        }
        if (Opcode.RECV == opcode || Opcode.RECV_RDMA_WITH_IMM == opcode)
        {
            receives++;
            receivedBytes = byteLength;
        }
        else if (wrId > lastSendWrId)
        {
            lastSendWrId = wrId;
        }
    }

    /**
     * @return the highest {@code wrId} of a successful send-queue completion.
     */
    long lastSendWrId()
    {
        return lastSendWrId;
    }

    /**
     * @return successful receive completions so far.
     */
    long receives()
    {
        return receives;
    }

    /**
     * @return byte length of the last successful receive.
     */
    int receivedBytes()
    {
        return receivedBytes;
    }

    /**
     * Throws if any completion failed (allocates only then).
     *
     * @throws IOException naming the work request, opcode and {@link WcStatus}.
     */
    void check() throws IOException
    {
        if (failed)
        {
            throw new IOException("work request " + failedWrId + " (" + Opcode.name(failedOpcode) +
                ") completed with " + WcStatus.name(failedStatus));
        }
    }
}

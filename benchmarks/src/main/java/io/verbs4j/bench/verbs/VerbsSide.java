// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.verbs;

import io.verbs4j.Access;
import io.verbs4j.CompletionQueue;
import io.verbs4j.Device;
import io.verbs4j.MemoryRegion;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.QpState;
import io.verbs4j.QueuePair;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.RecvRequest;
import io.verbs4j.SendRequest;
import io.verbs4j.Verbs;
import io.verbs4j.bench.spi.SessionSpec;
import io.verbs4j.bench.spi.TestKind;
import io.verbs4j.bench.spi.WaitLoop;
import io.verbs4j.config.DeviceContext;
import io.verbs4j.config.ThreadingMode;
import io.verbs4j.tcp.TcpConfiguration;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeoutException;

/**
 * One side of a verbs session: device, protection domain, one completion queue for both directions, one region,
 * one queue pair, and the allocation-free post/poll/wait steps both sides' loops are made of.
 * <p>
 * Region layout, identical on both sides so each can compute the other's offsets:
 * <pre>
 *   0            SLOT          2 * SLOT
 *   | send area   | recv area   |        SLOT = message size rounded up to 64 B
 * </pre>
 * WRITE sources and SEND payloads come from the send area; peers WRITE into, and SENDs land in, the recv area;
 * READs fetch the peer's send area into the local recv area; atomics target the peer's word at offset 0 and return
 * the old value into the local word at offset 0.
 * <p>
 * Idle settings: {@code busyPoll} maps to the device idle strategy {@code spin} (else {@code backoff}), the
 * {@code SINGLE_THREAD} threading mode (no device progress thread: the loop's own polling drives progress, and each
 * side's one thread needs no exclusion inside the provider) and, on tcp,
 * to {@code verbs4j.tcp.mode=poll} (else {@code event}). Single-threaded after set-up.
 */
final class VerbsSide implements AutoCloseable
{
    /** perftest's default inline size for RC SEND ({@code DEF_INLINE_SEND_RC_UC}); capped by the device's. */
    static final int PERFTEST_INLINE_BYTES = 236;
    /** perftest's default CQ moderation for bandwidth tests ({@code DEF_CQ_MOD}): one signaled WR per 100. */
    static final int CQ_MODERATION = 100;
    /** Send and receive depth of the latency tests. */
    static final int LATENCY_DEPTH = 16;
    /** perftest's receive depth ({@code DEF_RX_SEND}) for SEND bandwidth, at least twice the window. */
    static final int SEND_BW_RX_DEPTH = 512;
    /** Completions taken per poll. */
    static final int POLL_LIMIT = 64;
    /** Idle steps of a memory-polling wait between checks of the CQ for failures (power of two minus one). */
    static final int LONG_WAIT_MASK = (1 << 12) - 1;
    /** Bytes of the private data: region address and rkey. */
    static final int PRIVATE_DATA_LENGTH = Long.BYTES + Integer.BYTES;

    final SessionSpec spec;
    final VerbsOperation operation;
    final Device device;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final MemoryRegion region;
    final int slot;
    final int size;
    final int inlineLimit;
    final int sendDepth;
    final int recvDepth;
    final CompletionCounter counter = new CompletionCounter();
    final SendRequest send = new SendRequest(1);
    final RecvRequest recv = new RecvRequest(1);
    final UnsafeBuffer recvArea = new UnsafeBuffer(0, 0);
    final WaitLoop waitLoop;
    /** Whether a wait on memory polls the CQ at every step: on tcp that poll is the provider's progress. */
    final boolean progressInMemoryWait;
    QueuePair qp;
    long peerAddress;
    int peerRkey;

    VerbsSide(final String provider, final VerbsOperation operation, final SessionSpec spec, final String bindAddress)
    {
        this.spec = spec;
        this.operation = operation;
        this.size = spec.messageBytes();
        this.slot = align64(Math.max(size, Long.BYTES));
        this.waitLoop = WaitLoop.forSession(spec);
        this.progressInMemoryWait = "tcp".equals(provider);
        this.device = Verbs.open(provider, context(provider, spec.busyPoll(), bindAddress));
        try
        {
            final boolean latency = TestKind.LATENCY == spec.kind();
            this.inlineLimit = Math.min(PERFTEST_INLINE_BYTES, device.capabilities().maxInlineLength());
            final int maxDepth = device.capabilities().maxQueueDepth();
            this.sendDepth = latency ? LATENCY_DEPTH : Math.min(maxDepth, spec.window());
            this.recvDepth = VerbsOperation.SEND != operation ? 1 :
                (latency ? LATENCY_DEPTH : Math.min(maxDepth, Math.max(SEND_BW_RX_DEPTH, 2 * spec.window())));
            this.pd = device.allocateProtectionDomain();
            this.cq = device.createCompletionQueue(sendDepth + recvDepth);
            this.region = pd.allocate(2L * slot, Access.ALL);
            region.wrap(recvArea, slot, slot);
            recv.sge(region, slot, size);
        }
        catch (final RuntimeException ex)
        {
            device.close();
            throw ex;
        }
    }

    private static DeviceContext context(final String provider, final boolean busyPoll, final String bindAddress)
    {
        // Busy-polling loops poll the CQ all the time, which drives the provider's progress: a spinning progress
        // agent beside them would only take a core away (two processes x two spinners on a 2-core machine). Each
        // side is one thread, so it says so (SINGLE_THREAD, as ucx_perftest runs UCX's workers single-threaded): the
        // provider then needs no exclusion of its own.
        final DeviceContext context = new DeviceContext().idleStrategy(busyPoll ? "spin" : "backoff");
        if (busyPoll)
        {
            context.threadingMode(ThreadingMode.SINGLE_THREAD);
        }
        else
        {
            context.progressThread(true);
        }
        if ("tcp".equals(provider))
        {
            context.property(TcpConfiguration.MODE_PROP_NAME, busyPoll ? "poll" : "event");
            if (null != bindAddress && isWildcard(bindAddress))
            {
                context.property(TcpConfiguration.BIND_ANY_PROP_NAME, "true");
            }
        }
        return context;
    }

    /**
     * Whether an address (bare or in brackets) is a wildcard, in any spelling: a listener bound to {@code 0.0.0.0}
     * on a dual-stack JVM reports {@code [0:0:0:0:0:0:0:0]}. Host names are never looked up.
     */
    static boolean isWildcard(final String address)
    {
        if (address.isEmpty() || "*".equals(address))
        {
            return true;
        }
        final String bare = address.startsWith("[") && address.endsWith("]") ?
            address.substring(1, address.length() - 1) : address;
        if (bare.indexOf(':') < 0 && !bare.matches("[0-9.]+"))
        {
            return false;
        }
        try
        {
            return InetAddress.getByName(bare).isAnyLocalAddress();
        }
        catch (final UnknownHostException ex)
        {
            return false;
        }
    }

    static int align64(final int value)
    {
        return (value + 63) & ~63;
    }

    /**
     * Creates the queue pair in INIT, with the receives of a SEND test posted.
     *
     * @throws IOException if a receive cannot be posted.
     */
    void createQueuePair() throws IOException
    {
        qp = pd.createQueuePair(new QueuePairConfig(cq)
            .sendDepth(sendDepth).recvDepth(recvDepth).maxInlineLength(inlineLimit));
        qp.modify(QpState.INIT);
        if (VerbsOperation.SEND == operation)
        {
            for (int i = 0; i < recvDepth; i++)
            {
                postRecv();
            }
        }
    }

    byte[] privateData()
    {
        return ByteBuffer.allocate(PRIVATE_DATA_LENGTH).putLong(region.address()).putInt(region.rkey()).array();
    }

    void peer(final byte[] privateData) throws IOException
    {
        if (null == privateData || privateData.length < PRIVATE_DATA_LENGTH)
        {
            throw new IOException("peer sent no region address and rkey");
        }
        final ByteBuffer buffer = ByteBuffer.wrap(privateData);
        peerAddress = buffer.getLong();
        peerRkey = buffer.getInt();
    }

    /**
     * Prepares {@link #send} for the session's verb: SGE, remote target, operands.
     */
    void prepareSend()
    {
        send.clearSges().opcode(operation.opcode());
        switch (operation)
        {
            case WRITE:
                send.sge(region, 0, size).remote(peerAddress + slot, peerRkey);
                break;
            case READ:
                send.sge(region, slot, size).remote(peerAddress, peerRkey);
                break;
            case SEND:
                send.sge(region, 0, size);
                break;
            default:
                send.sge(region, 0, Long.BYTES).remote(peerAddress, peerRkey).atomic(1, 0);
                break;
        }
    }

    /**
     * Flags for a request of this session: inline when the verb carries a payload of at most {@link #inlineLimit}.
     *
     * @param signaled whether to ask for a completion.
     * @return the flags.
     */
    int flags(final boolean signaled)
    {
        int flags = signaled ? SendRequest.SIGNALED : 0;
        if ((VerbsOperation.WRITE == operation || VerbsOperation.SEND == operation) && size <= inlineLimit)
        {
            flags |= SendRequest.INLINE;
        }
        return flags;
    }

    /**
     * Posts {@link #send}, polling completions while the send queue is full.
     *
     * @throws IOException      if the post is refused or a completion failed.
     * @throws TimeoutException if the queue stayed full for the session timeout.
     */
    void postSend() throws IOException, TimeoutException
    {
        int rc = qp.postSend(send);
        if (QueuePair.BACK_PRESSURED == rc)
        {
            waitLoop.reset();
            do
            {
                if (0 == cq.poll(counter, POLL_LIMIT))
                {
                    waitLoop.idle();
                }
                counter.check();
                rc = qp.postSend(send);
            }
            while (QueuePair.BACK_PRESSURED == rc);
        }
        if (QueuePair.OK != rc)
        {
            throw new IOException("postSend refused: " + QueuePair.describe(rc));
        }
    }

    /**
     * Posts one receive into the recv area.
     *
     * @throws IOException if the post is refused.
     */
    void postRecv() throws IOException
    {
        final int rc = qp.postRecv(recv);
        if (QueuePair.OK != rc)
        {
            throw new IOException("postRecv refused: " + QueuePair.describe(rc));
        }
    }

    /**
     * Polls until the send-queue completion with {@code wrId} (or a later one) has arrived. Progress wins over
     * errors: a wait that is satisfied returns even if the same poll also delivered a failure (e.g. the flush of
     * spare receives when the peer disconnects after the last message); the failure surfaces at the next wait.
     *
     * @param wrId the signaled request's id.
     * @throws IOException      if a completion failed.
     * @throws TimeoutException if it did not come within the session timeout.
     */
    void awaitSend(final long wrId) throws IOException, TimeoutException
    {
        if (counter.lastSendWrId() >= wrId)
        {
            return;
        }
        waitLoop.reset();
        while (true)
        {
            final int polled = cq.poll(counter, POLL_LIMIT);
            if (counter.lastSendWrId() >= wrId)
            {
                return;
            }
            counter.check();
            if (0 == polled)
            {
                waitLoop.idle();
            }
        }
    }

    /**
     * Polls until at least {@code count} receives have completed in all.
     *
     * @param count receive completions wanted since the start.
     * @throws IOException      if a completion failed.
     * @throws TimeoutException if they did not come within the session timeout.
     */
    void awaitReceives(final long count) throws IOException, TimeoutException
    {
        if (counter.receives() >= count)
        {
            return;
        }
        waitLoop.reset();
        while (true)
        {
            final int polled = cq.poll(counter, POLL_LIMIT);
            if (counter.receives() >= count)
            {
                return;
            }
            counter.check();
            if (0 == polled)
            {
                waitLoop.idle();
            }
        }
    }

    /**
     * Spins (or backs off) until the last byte of the recv area holds {@code value}: how ib_write_lat sees the
     * peer's WRITE arrive.
     *
     * @param value the expected byte.
     * @throws IOException      if a completion failed meanwhile.
     * @throws TimeoutException if it did not arrive within the session timeout.
     */
    void awaitLastByte(final byte value) throws IOException, TimeoutException
    {
        // The region is native memory: poll its last byte by address, as the cache-line baseline polls its line
        // (UnsafeBuffer's bounds check on every load was 3-5 % of a busy-polled WRITE ping-pong's samples).
        final long lastByte = recvArea.addressOffset() + size - 1;
        if (UnsafeApi.getByteVolatile(null, lastByte) == value)
        {
            return;
        }
        waitLoop.reset();
        int idles = 0;
        while (UnsafeApi.getByteVolatile(null, lastByte) != value)
        {
            // Like ib_write_lat only memory is polled, except that a wait this long also looks for a failed
            // completion (a dead connection would otherwise only show as the session timeout). On tcp every step
            // polls the CQ too, as UCX's put_lat calls ucp_worker_progress: that poll reads the socket, so the
            // peer's WRITE lands on this thread without waking an I/O thread (TcpConfiguration's poller reads).
            if (progressInMemoryWait || 0 == (++idles & LONG_WAIT_MASK))
            {
                cq.poll(counter, POLL_LIMIT);
                counter.check();
            }
            waitLoop.idle();
        }
    }

    /**
     * Closes the queue pair (the peer's goes to ERROR) and the device with everything in it. Idempotent.
     */
    @Override
    public void close()
    {
        if (null != qp)
        {
            qp.close();
        }
        device.close();
    }
}

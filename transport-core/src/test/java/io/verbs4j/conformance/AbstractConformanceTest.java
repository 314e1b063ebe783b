// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.conformance;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.verbs4j.CompletionQueue;
import io.verbs4j.Device;
import io.verbs4j.MemoryRegion;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.QueuePair;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.SendRequest;
import io.verbs4j.Verbs;
import io.verbs4j.WcStatus;
import io.verbs4j.config.DeviceContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Fixture of every conformance suite: a device in the test JVM (the active side) and a {@link Peer} (the passive
 * side) in a child JVM by default, or in this JVM when {@link #crossProcess()} is false. A provider module runs a
 * suite by subclassing it and naming the provider; nothing here knows any provider.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class AbstractConformanceTest
{
    /** Longest wait for one completion in a test. */
    protected static final long WAIT_MS = 10_000;
    private static final AtomicInteger NAMES = new AtomicInteger();

    /** The device of the active side. */
    protected Device device;
    /** The passive side. */
    protected Peer peer;
    /** Where the peer listens. */
    protected String endpoint;
    /** Fresh for each test. */
    protected ProtectionDomain pd;
    /** Fresh for each test, capacity 1024. */
    protected CompletionQueue cq;

    /** @return the provider under test. */
    protected abstract String providerName();

    /**
     * @return device properties for both sides ({@code verbs4j.peer.timeout.ms} sets the context's peer timeout).
     */
    protected Map<String, String> deviceProperties()
    {
        return Map.of();
    }

    /** @return true to run the peer in a child JVM (the default), false for a second device in this JVM. */
    protected boolean crossProcess()
    {
        return true;
    }

    /** @return a context with {@link #deviceProperties()}. */
    protected DeviceContext newContext()
    {
        final DeviceContext context = new DeviceContext();
        deviceProperties().forEach((name, value) -> PeerMain.apply(context, name, value));
        return context;
    }

    /**
     * @return a name unique on this host, for listeners.
     */
    protected static String uniqueName()
    {
        return "conf-" + ProcessHandle.current().pid() + "-" + NAMES.incrementAndGet();
    }

    @BeforeAll
    void openDeviceAndPeer()
    {
        device = Verbs.open(providerName(), newContext());
        peer = newPeer();
        endpoint = peer.listen(uniqueName());
    }

    @AfterAll
    void closeDeviceAndPeer()
    {
        if (null != peer)
        {
            peer.close();
        }
        if (null != device)
        {
            device.close();
        }
    }

    @BeforeEach
    void openPerTest()
    {
        pd = device.allocateProtectionDomain();
        cq = device.createCompletionQueue(1024);
    }

    @AfterEach
    void closePerTest()
    {
        pd.close();
        cq.close();
    }

    /** @return a new peer of the configured kind. */
    protected Peer newPeer()
    {
        return crossProcess() ? new RemotePeer(providerName(), deviceProperties()) :
            new LocalPeer(providerName(), newContext());
    }

    /**
     * Connects a new queue pair (depth 64, 4 SGEs, inline up to the device maximum or 64) to a freshly accepted
     * peer queue pair holding {@code peerRecvs} receives of {@code peerRecvSize} bytes.
     *
     * @param peerRecvs    receives the peer posts before accepting.
     * @param peerRecvSize their size.
     * @return the connected queue pair, in RTS.
     */
    protected QueuePair connect(final int peerRecvs, final int peerRecvSize)
    {
        return connect(defaultConfig(), peerRecvs, peerRecvSize, QueuePairConfig.RNR_RETRY_INFINITE);
    }

    /** @return the configuration {@link #connect(int, int)} uses. */
    protected QueuePairConfig defaultConfig()
    {
        final int inline = Math.min(64, device.capabilities().maxInlineLength());
        return new QueuePairConfig(cq).sendDepth(64).recvDepth(64)
            .maxSendSge(Math.min(4, device.capabilities().maxSge()))
            .maxRecvSge(Math.min(4, device.capabilities().maxSge())).maxInlineLength(inline);
    }

    /**
     * @param config       local queue-pair attributes.
     * @param peerRecvs    receives the peer posts before accepting.
     * @param peerRecvSize their size.
     * @param peerRnrRetry RNR retry count of the peer's queue pair.
     * @return the connected queue pair.
     */
    protected QueuePair connect(
        final QueuePairConfig config, final int peerRecvs, final int peerRecvSize, final int peerRnrRetry)
    {
        peer.acceptAsync(peerRecvs, peerRecvSize, peerRnrRetry, "peer-hello".getBytes(StandardCharsets.US_ASCII));
        final QueuePair qp = pd.createQueuePair(config);
        final byte[] reply = device.connectionManager().connect(qp, endpoint,
            "active-hello".getBytes(StandardCharsets.US_ASCII), Duration.ofSeconds(10));
        assertEquals("peer-hello", new String(reply, StandardCharsets.US_ASCII));
        assertEquals("active-hello", new String(peer.awaitAccepted(WAIT_MS), StandardCharsets.US_ASCII));
        return qp;
    }

    /**
     * @param length bytes.
     * @param access flags.
     * @return a region of the test's domain.
     */
    protected MemoryRegion allocate(final long length, final int access)
    {
        return pd.allocate(length, access);
    }

    /**
     * @param qp      queue pair.
     * @param request request.
     */
    protected static void post(final QueuePair qp, final SendRequest request)
    {
        final int rc = qp.postSend(request);
        assertEquals(QueuePair.OK, rc, () -> "postSend: " + QueuePair.describe(rc));
    }

    /**
     * @param queue the completion queue.
     * @param count completions wanted.
     * @return exactly {@code count} completions, or the test fails after {@link #WAIT_MS}.
     */
    protected static List<Peer.Completion> await(final CompletionQueue queue, final int count)
    {
        final List<Peer.Completion> out = new ArrayList<>();
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        try
        {
            while (out.size() < count)
            {
                final long left = deadline - System.nanoTime();
                if (left <= 0)
                {
                    fail("only " + out.size() + " of " + count + " completions within " + WAIT_MS + " ms: " + out);
                }
                queue.poll((wrId, status, opcode, byteLength, imm, flags, qpNumber) ->
                    out.add(new Peer.Completion(wrId, status, opcode, byteLength, imm, flags, qpNumber)),
                    count - out.size(), left, TimeUnit.NANOSECONDS);
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            fail("interrupted");
        }
        return out;
    }

    /**
     * @param queue the completion queue.
     * @return the next completion.
     */
    protected static Peer.Completion awaitOne(final CompletionQueue queue)
    {
        return await(queue, 1).get(0);
    }

    /**
     * Asserts nothing more arrives within a short while.
     *
     * @param queue   the completion queue.
     * @param quietMs how long to watch.
     */
    protected static void assertQuiet(final CompletionQueue queue, final long quietMs)
    {
        try
        {
            final List<String> seen = new ArrayList<>();
            queue.poll((wrId, status, opcode, byteLength, imm, flags, qpNumber) ->
                seen.add(wrId + ":" + WcStatus.name(status)), 16, quietMs, TimeUnit.MILLISECONDS);
            assertEquals(List.of(), seen, "unexpected completions");
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * @param length bytes.
     * @param seed   seed.
     * @return deterministic non-trivial bytes.
     */
    protected static byte[] pattern(final int length, final int seed)
    {
        final byte[] data = new byte[length];
        int x = seed * 0x9E3779B9 + 1;
        for (int i = 0; i < length; i++)
        {
            x ^= x << 13;
            x ^= x >>> 17;
            x ^= x << 5;
            data[i] = (byte)x;
        }
        return data;
    }

    /**
     * @param expected expected status.
     * @param c        completion.
     */
    protected static void assertStatus(final int expected, final Peer.Completion c)
    {
        assertEquals(WcStatus.name(expected), WcStatus.name(c.status()), () -> "completion " + c);
    }
}

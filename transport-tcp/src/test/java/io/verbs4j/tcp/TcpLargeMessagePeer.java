// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.nio.ByteBuffer;
import java.time.Duration;

import io.verbs4j.Access;
import io.verbs4j.CompletionQueue;
import io.verbs4j.ConnectionRequest;
import io.verbs4j.Device;
import io.verbs4j.Listener;
import io.verbs4j.MemoryRegion;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.QpState;
import io.verbs4j.QueuePair;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.Verbs;

/**
 * The other process of {@link TcpLargeMessageTest#shouldKeepFourMebibyteFramesWholeBetweenProcessesWithSeveralPosters}:
 * it listens, prints its endpoint, accepts {@code queuePairs} connections (each request's private data names the
 * parent's region: address, rkey) and answers with its own region, then runs a {@link LargeMessageStream} per queue
 * pair on a thread of its own and prints {@code RESULT OK} or {@code RESULT FAIL <what>}.
 * <p>
 * Arguments: queue pairs, message size, rounds.
 */
public final class TcpLargeMessagePeer
{
    /** Pattern seed of the parent's queue pair {@code q}. */
    static long parentSeed(final int q)
    {
        return 1000 + q;
    }

    /** Pattern seed of this process's queue pair {@code q}. */
    static long childSeed(final int q)
    {
        return 2000 + q;
    }

    private TcpLargeMessagePeer()
    {
    }

    /**
     * @param args queue pairs, message size, rounds.
     * @throws Exception on failure.
     */
    public static void main(final String[] args) throws Exception
    {
        final int queuePairs = Integer.parseInt(args[0]);
        final int size = Integer.parseInt(args[1]);
        final int rounds = Integer.parseInt(args[2]);
        try (Device device = Verbs.open("tcp");
            Listener listener = device.connectionManager().listen("tcp://127.0.0.1:0"))
        {
            final ProtectionDomain pd = device.allocateProtectionDomain();
            final LargeMessageStream[] streams = new LargeMessageStream[queuePairs];
            final QueuePair[] qps = new QueuePair[queuePairs];
            final MemoryRegion[] regions = new MemoryRegion[queuePairs];
            final CompletionQueue[] cqs = new CompletionQueue[queuePairs];
            for (int q = 0; q < queuePairs; q++)
            {
                cqs[q] = device.createCompletionQueue(256);
                qps[q] = pd.createQueuePair(new QueuePairConfig(cqs[q]));
                regions[q] = pd.allocate((long)LargeMessageStream.REGION_SLOTS * size, Access.ALL);
                qps[q].modify(QpState.INIT);
                LargeMessageStream.postInitialReceives(qps[q], regions[q], size);
            }
            System.out.println("ENDPOINT " + listener.endpoint());
            System.out.flush();
            for (int i = 0; i < queuePairs; i++)
            {
                final ConnectionRequest request = listener.accept(Duration.ofSeconds(30));
                final ByteBuffer parent = ByteBuffer.wrap(request.privateData());
                final int q = parent.getInt();
                final long address = parent.getLong();
                final int rkey = parent.getInt();
                streams[q] = new LargeMessageStream(qps[q], cqs[q], regions[q], size, address, rkey, childSeed(q),
                    parentSeed(q));
                request.accept(qps[q], ByteBuffer.allocate(12).putLong(regions[q].address())
                    .putInt(regions[q].rkey()).array());
            }
            final String[] errors = new String[queuePairs];
            final Thread[] threads = new Thread[queuePairs];
            for (int q = 0; q < queuePairs; q++)
            {
                final int index = q;
                threads[q] = new Thread(() -> errors[index] = streams[index].run(rounds), "poster-" + q);
                threads[q].start();
            }
            String failure = null;
            for (int q = 0; q < queuePairs; q++)
            {
                threads[q].join();
                if (null == failure && null != errors[q])
                {
                    failure = "child queue pair " + q + ": " + errors[q];
                }
            }
            System.out.println(null == failure ? "RESULT OK" : "RESULT FAIL " + failure);
            System.out.flush();
            // Stay until the parent has checked its last round and closes the connections.
            for (int q = 0; q < queuePairs; q++)
            {
                while (QpState.ERROR != qps[q].state())
                {
                    Thread.sleep(20);
                }
            }
        }
    }
}

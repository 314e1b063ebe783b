// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;

import io.verbs4j.Access;
import io.verbs4j.CompletionBatch;
import io.verbs4j.CompletionQueue;
import io.verbs4j.ConnectionRequest;
import io.verbs4j.Device;
import io.verbs4j.Listener;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.QpState;
import io.verbs4j.QueuePair;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.RecvRequest;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;

/**
 * The peer process of {@link ShmCrossProcessTest}: listens, accepts one queue pair, publishes a region
 * (address and rkey in the accept's private data) and answers commands sent as SENDs: {@code 'E'} echo the message,
 * {@code 'A'} add 1 to the long at offset 0 of its region n times with local CPU atomics then answer, {@code 'S'}
 * stop posting receives. Exits when the queue pair goes to ERROR.
 * <p>
 * Arguments: segment directory, listener name, count of local atomic adds, and optionally {@code false} to run
 * without a progress thread (the poll loop drives progress).
 */
public final class ShmChildProcess
{
    private static final int SLOT = 1 << 20;

    private ShmChildProcess()
    {
    }

    /**
     * @param args directory, listener name, atomic adds.
     * @throws Exception on failure (the parent sees the exit code).
     */
    public static void main(final String[] args) throws Exception
    {
        final Path dir = Path.of(args[0]);
        final String name = args[1];
        final int adds = Integer.parseInt(args[2]);
        final boolean progressThread = args.length < 4 || Boolean.parseBoolean(args[3]);
        try (Device device = ShmTestSupport.open(dir, progressThread))
        {
            final ProtectionDomain pd = device.allocateProtectionDomain();
            final CompletionQueue cq = device.createCompletionQueue(256);
            final QueuePair qp = pd.createQueuePair(new QueuePairConfig(cq).sendDepth(16).recvDepth(16));
            final MemoryRegion exposed = pd.allocate(4 * SLOT, Access.ALL);
            final MemoryRegion buffers = pd.allocate(8 * SLOT, Access.LOCAL_WRITE);
            qp.modify(QpState.INIT);
            final RecvRequest recv = new RecvRequest(1);
            for (int i = 0; i < 4; i++)
            {
                qp.postRecv(recv.clearSges().wrId(i).sge(buffers, (long)i * SLOT, SLOT));
            }
            try (Listener listener = device.connectionManager().listen("shm://" + name))
            {
                System.out.println("LISTENING");
                System.out.flush();
                final ConnectionRequest request = listener.accept(Duration.ofSeconds(30));
                final ByteBuffer info = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
                info.putLong(exposed.address()).putInt(exposed.rkey());
                request.accept(qp, info.array());
            }
            final CompletionBatch batch = new CompletionBatch(16);
            final SendRequest send = new SendRequest(1);
            boolean repost = true;
            while (QpState.ERROR != qp.state())
            {
                batch.clear();
                if (0 == cq.poll(batch, 16, 10, java.util.concurrent.TimeUnit.MILLISECONDS))
                {
                    continue;
                }
                for (int i = 0; i < batch.size(); i++)
                {
                    if (WcStatus.SUCCESS != batch.status(i) || Opcode.RECV != batch.opcode(i))
                    {
                        continue;
                    }
                    final int slot = (int)batch.wrId(i);
                    final long offset = (long)slot * SLOT;
                    final byte command = buffers.getByte(offset);
                    final int length = batch.byteLength(i);
                    if ('A' == command)
                    {
                        for (int n = 0; n < adds; n++)
                        {
                            exposed.getAndAddLong(0, 1);
                        }
                    }
                    if ('S' == command)
                    {
                        repost = false;
                        continue;
                    }
                    // Answer with the message itself, from a second half of the buffers.
                    final long reply = (4L + slot) * SLOT;
                    buffers.setMemory(reply, length, (byte)0);
                    for (long b = 0; b < length; b += 4096)
                    {
                        final int chunk = (int)Math.min(4096, length - b);
                        final byte[] bytes = new byte[chunk];
                        buffers.getBytes(offset + b, bytes, 0, chunk);
                        buffers.putBytes(reply + b, bytes, 0, chunk);
                    }
                    if (repost)
                    {
                        qp.postRecv(recv.clearSges().wrId(slot).sge(buffers, offset, SLOT));
                    }
                    qp.postSend(send.clearSges().wrId(100 + slot).sge(buffers, reply, length));
                }
            }
        }
    }
}

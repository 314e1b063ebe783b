// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.system;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

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
import io.verbs4j.Verbs;
import io.verbs4j.WcStatus;
import io.verbs4j.launch.ChildJvm;
import io.verbs4j.system.support.Messages;
import io.verbs4j.system.support.Resources;
import io.verbs4j.system.support.SystemTests;

/**
 * One kill point of a verbs stream: this JVM (the survivor) streams work of one {@link Kind} to a
 * {@link FaultPeerMain} child (or, for {@link Kind#RECV}, receives the child's stream), the child is SIGKILLed (or
 * SIGSTOPped) at a random moment or after a random number of completions, and the survivor checks what the verbs
 * model promises:
 * <ul>
 *   <li>every posted request completes exactly once, in posting order;</li>
 *   <li>statuses are SUCCESS..., then RETRY_EXC_ERR or WR_FLUSH_ERR, then only WR_FLUSH_ERR; no failure before the
 *       signal;</li>
 *   <li>the QP is in ERROR within {@link SystemTests#DETECTION_BOUND_MS} of the signal, and a later post flushes;</li>
 *   <li>every successful READ brought the peer's bytes, every atomic returned the expected old value, every received
 *       message is intact (CRC32C) and in order;</li>
 *   <li>after closing: no verbs4j thread, fd, direct or mapped buffer left over the baseline, and the shm directory
 *       is empty (the dead peer's files swept).</li>
 * </ul>
 */
final class VerbsKillPoint
{
    /** What the survivor streams. */
    enum Kind
    {
        /** RDMA WRITEs of random size to random places. */
        WRITE,
        /** Checked SENDs of random size; the child checks them. */
        SEND,
        /** The child streams checked SENDs; the survivor receives and checks. */
        RECV,
        /** RDMA READs of random ranges of a patterned region. */
        READ,
        /** Fetch-and-add and compare-and-swap on one counter. */
        ATOMIC
    }

    /** How the peer is taken out. */
    enum Signal
    {
        /** SIGKILL. */
        KILL,
        /** SIGSTOP (then SIGKILL once the survivor noticed). */
        STOP
    }

    private static final int DEPTH = 64;
    private static final int MAX_MESSAGE = 64 * 1024;
    private static final int SLOT = Messages.HEADER_LENGTH + MAX_MESSAGE;
    private static final int REMOTE_BYTES = 1 << 20;

    private VerbsKillPoint()
    {
    }

    /**
     * The result of one kill point.
     *
     * @param provider   shm or tcp.
     * @param kind       the stream.
     * @param signal     KILL or STOP.
     * @param trigger    "t=Nms" or "c=N" (after N completions).
     * @param posted     requests posted (sends, or receives for RECV).
     * @param succeeded  of which SUCCESS.
     * @param firstError status of the first failed completion, or "-".
     * @param detectMs   signal to QP ERROR.
     * @param problem    null if every check held.
     */
    record Outcome(String provider, Kind kind, Signal signal, String trigger, long posted, long succeeded,
        String firstError, long detectMs, String problem)
    {
        boolean ok()
        {
            return null == problem;
        }

        @Override
        public String toString()
        {
            return provider + " " + kind + " " + signal + " " + trigger + " posted=" + posted + " ok=" + succeeded +
                " firstError=" + firstError + " detectMs=" + detectMs + (ok() ? " PASS" : " FAIL: " + problem);
        }
    }

    /**
     * Runs one kill point.
     *
     * @param provider shm or tcp.
     * @param kind     the stream.
     * @param signal   KILL or STOP.
     * @param random   decides when, sizes and places.
     * @param shmDir   the shm directory (must be empty before and is checked empty after).
     * @param baseline resources of this JVM with nothing open.
     * @param name     unique listener name.
     * @return what happened.
     */
    static Outcome run(final String provider, final Kind kind, final Signal signal, final SplittableRandom random,
        final Path shmDir, final Resources baseline, final String name)
    {
        final boolean byTime = random.nextBoolean();
        final long delayMs = random.nextInt(10) == 0 ? 0 : random.nextInt(600);
        final long afterCompletions = 1 + random.nextInt(3000);
        final String trigger = byTime ? "t=" + delayMs + "ms" : "c=" + afterCompletions;
        final Stream stream = new Stream(kind, random);
        String problem = null;
        long childPid = -1;
        try (ChildJvm child = new ChildJvm("peer " + provider, SystemTests.SMALL_CHILD, FaultPeerMain.class,
            SystemTests.peerArgs(provider, shmDir)))
        {
            childPid = child.pid();
            try
            {
                problem = stream.run(provider, child, shmDir, name, byTime, delayMs, afterCompletions, signal);
            }
            finally
            {
                child.kill();
            }
            final List<String> bad = child.badLines();
            if (null == problem && !bad.isEmpty())
            {
                problem = "peer saw corrupted data: " + bad;
            }
        }
        catch (final Throwable t)
        {
            problem = null == problem ? "exception: " + t : problem;
        }
        if (null == problem)
        {
            try
            {
                Resources.assertBackTo(baseline, shmDir, 15_000);
            }
            catch (final AssertionError e)
            {
                problem = e.getMessage();
            }
        }
        else
        {
            // A point that failed early left its killed child's files (nobody was there to notice the death): remove
            // them, or the next point would report them as its own leak.
            removeChildFiles(shmDir, childPid, name);
        }
        return new Outcome(provider, kind, signal, trigger, stream.posted, stream.succeeded,
            stream.firstError < 0 ? "-" : WcStatus.name(stream.firstError), stream.detectMs, problem);
    }

    private static void removeChildFiles(final Path shmDir, final long childPid, final String name)
    {
        try
        {
            for (final Path f : Resources.regularFiles(shmDir))
            {
                if (isOfPoint(f.getFileName().toString(), childPid, name))
                {
                    f.toFile().delete();
                }
            }
        }
        catch (final RuntimeException ignore)
        {
            // best effort: the next point's check then reports what is left
        }
    }

    /** The child's segments ({@code -p<pid>-}) and the point's listeners ({@code -<name>.}, {@code -<name>-}). */
    private static boolean isOfPoint(final String fileName, final long childPid, final String name)
    {
        return (childPid > 0 && fileName.contains("-p" + childPid + "-")) || fileName.contains("-" + name + ".") ||
            fileName.contains("-" + name + "-");
    }

    /** The survivor's side of one stream. */
    private static final class Stream
    {
        private final Kind kind;
        private final SplittableRandom random;
        private final byte[] pool = new byte[MAX_MESSAGE + 4096];
        long posted;
        long completed;
        long succeeded;
        int firstError = -1;
        long detectMs = -1;
        private long expectedRecvSeq;
        private String problem;
        private final long[] readRemote = new long[DEPTH];
        private final int[] readLength = new int[DEPTH];

        Stream(final Kind kind, final SplittableRandom random)
        {
            this.kind = kind;
            this.random = random;
            random.nextBytes(pool);
        }

        String run(final String provider, final ChildJvm child, final Path shmDir, final String name,
            final boolean byTime, final long delayMs, final long afterCompletions, final Signal signal)
            throws Exception
        {
            final String endpoint = child.call("LISTEN " + name);
            final String[] region = child.call("SERVE 1 " + DEPTH + " " + SLOT + " " + REMOTE_BYTES + " " +
                (Kind.READ == kind ? 1 : 0) + " same").split(" ");
            final long remoteAddress = Long.parseLong(region[0]);
            final int rkey = Integer.parseInt(region[1]);
            try (Device device = Verbs.open(provider, SystemTests.context(provider, shmDir)))
            {
                final ProtectionDomain pd = device.allocateProtectionDomain();
                final CompletionQueue cq = device.createCompletionQueue(4 * DEPTH);
                final QueuePair qp = pd.createQueuePair(new QueuePairConfig(cq).sendDepth(DEPTH).recvDepth(DEPTH)
                    .rnrRetry(QueuePairConfig.RNR_RETRY_INFINITE));
                final MemoryRegion mr = pd.allocate((long)DEPTH * SLOT, Access.LOCAL_WRITE);
                if (Kind.RECV == kind)
                {
                    qp.modify(QpState.INIT);
                    final RecvRequest recv = new RecvRequest(1);
                    for (int s = 0; s < DEPTH; s++)
                    {
                        qp.postRecv(recv.clearSges().wrId(s).sge(mr, (long)s * SLOT, SLOT));
                    }
                    posted = DEPTH;
                    try (Listener listener = device.connectionManager().listen(
                        SystemTests.listenEndpoint(provider, name + "-r")))
                    {
                        final CompletableFuture<String> sending = CompletableFuture.supplyAsync(() ->
                            child.call("SEND_TO " + listener.endpoint() + " 0 " + MAX_MESSAGE));
                        final ConnectionRequest request = listener.accept(Duration.ofSeconds(60));
                        if (null == request)
                        {
                            return "the peer never connected";
                        }
                        request.accept(qp, new byte[0]);
                        sending.get(60, TimeUnit.SECONDS);
                    }
                }
                else
                {
                    device.connectionManager().connect(qp, endpoint, new byte[0], Duration.ofSeconds(30));
                }
                return loop(qp, cq, mr, remoteAddress, rkey, child, byTime, delayMs, afterCompletions, signal);
            }
        }

        private String loop(final QueuePair qp, final CompletionQueue cq, final MemoryRegion mr,
            final long remoteAddress, final int rkey, final ChildJvm child, final boolean byTime, final long delayMs,
            final long afterCompletions, final Signal signal)
        {
            final long startNs = System.nanoTime();
            long signalledNs = 0;
            final SendRequest send = new SendRequest(1);
            final RecvRequest recv = new RecvRequest(1);
            final CompletionBatch batch = new CompletionBatch(DEPTH);
            long expectedWrId = 0;
            while (true)
            {
                final long now = System.nanoTime();
                // A stream too slow to reach its completion count is signalled after 20 s anyway.
                if (0 == signalledNs && (byTime ? now - startNs >= TimeUnit.MILLISECONDS.toNanos(delayMs) :
                    completed >= afterCompletions || now - startNs > TimeUnit.SECONDS.toNanos(20)))
                {
                    if (Signal.KILL == signal)
                    {
                        child.kill();
                    }
                    else
                    {
                        child.stop();
                    }
                    signalledNs = System.nanoTime();
                }
                if (0 != signalledNs && now - signalledNs > TimeUnit.MILLISECONDS.toNanos(
                    SystemTests.DETECTION_BOUND_MS + 10_000))
                {
                    return "hang: " + (posted - completed) + " of " + posted + " requests still outstanding " +
                        "and QP " + qp.state() + " long after the " + signal;
                }
                if (Kind.RECV != kind && firstError < 0)
                {
                    while (posted - completed < DEPTH)
                    {
                        final int rc = qp.postSend(next(send, mr, remoteAddress, rkey));
                        if (QueuePair.OK != rc)
                        {
                            return "post refused: " + QueuePair.describe(rc);
                        }
                        posted++;
                    }
                }
                final int n = cq.poll(batch);
                for (int k = 0; k < n; k++)
                {
                    final long wrId = batch.wrId(k);
                    final int status = batch.status(k);
                    if (wrId != expectedWrId)
                    {
                        return "completion of wrId " + wrId + " where " + expectedWrId + " was next (lost or " +
                            "duplicated completion)";
                    }
                    expectedWrId++;
                    completed++;
                    if (WcStatus.SUCCESS == status)
                    {
                        if (firstError >= 0)
                        {
                            return "SUCCESS of wrId " + wrId + " after " + WcStatus.name(firstError);
                        }
                        succeeded++;
                        final String wrong = checkSuccess(mr, wrId, batch.byteLength(k));
                        if (null != wrong)
                        {
                            return wrong;
                        }
                        if (Kind.RECV == kind)
                        {
                            final long s = wrId % DEPTH;
                            if (QueuePair.OK != qp.postRecv(recv.clearSges().wrId(posted).sge(mr, s * SLOT, SLOT)))
                            {
                                return "repost of a receive refused";
                            }
                            posted++;
                        }
                    }
                    else
                    {
                        if (0 == signalledNs)
                        {
                            return "premature " + WcStatus.name(status) + " before the " + signal + " (wrId " +
                                wrId + ")";
                        }
                        if (firstError < 0)
                        {
                            firstError = status;
                            detectMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - signalledNs);
                            if (WcStatus.RETRY_EXC_ERR != status && WcStatus.WR_FLUSH_ERR != status)
                            {
                                return "first error " + WcStatus.name(status) + ", expected RETRY_EXC_ERR or " +
                                    "WR_FLUSH_ERR";
                            }
                        }
                        else if (WcStatus.WR_FLUSH_ERR != status)
                        {
                            return "after the first error, " + WcStatus.name(status) + " instead of WR_FLUSH_ERR";
                        }
                    }
                }
                if (0 != signalledNs && completed == posted && QpState.ERROR == qp.state())
                {
                    break;
                }
                if (0 == n)
                {
                    LockSupport.parkNanos(10_000);
                }
            }
            if (detectMs < 0)
            {
                detectMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - signalledNs);
            }
            if (detectMs > SystemTests.DETECTION_BOUND_MS)
            {
                return "noticed the " + signal + " after " + detectMs + " ms > bound " +
                    SystemTests.DETECTION_BOUND_MS;
            }
            // A post in ERROR is accepted and flushed.
            final int rc = qp.postSend(send.clearSges().opcode(Opcode.SEND).flags(SendRequest.SIGNALED)
                .wrId(expectedWrId).sge(mr, 0, 8));
            if (QueuePair.OK != rc)
            {
                return "post in ERROR returned " + QueuePair.describe(rc);
            }
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            int got = 0;
            while (0 == got && System.nanoTime() < deadline)
            {
                got = cq.poll(batch);
            }
            if (1 != got || WcStatus.WR_FLUSH_ERR != batch.status(0) || expectedWrId != batch.wrId(0))
            {
                return "a post after ERROR did not flush: " + got + " completions" +
                    (got > 0 ? ", " + WcStatus.name(batch.status(0)) : "");
            }
            if (Signal.STOP == signal)
            {
                child.kill();
            }
            return null;
        }

        private SendRequest next(final SendRequest send, final MemoryRegion mr, final long remoteAddress,
            final int rkey)
        {
            final long wrId = posted;
            final int s = (int)(wrId % DEPTH);
            final long slot = (long)s * SLOT;
            send.clearSges().wrId(wrId).flags(SendRequest.SIGNALED);
            switch (kind)
            {
                case WRITE:
                {
                    final int length = 1 + random.nextInt(MAX_MESSAGE);
                    final long at = random.nextInt(REMOTE_BYTES - length + 1);
                    mr.putBytes(slot, pool, random.nextInt(4096), length);
                    return send.opcode(Opcode.RDMA_WRITE).sge(mr, slot, length).remote(remoteAddress + at, rkey);
                }
                case SEND:
                {
                    final int length = random.nextInt(MAX_MESSAGE + 1);
                    Messages.writeSend(mr, slot, wrId, pool, random.nextInt(4096), length);
                    return send.opcode(Opcode.SEND).sge(mr, slot, Messages.HEADER_LENGTH + length);
                }
                case READ:
                {
                    final int length = 1 + random.nextInt(MAX_MESSAGE);
                    final long at = random.nextInt(REMOTE_BYTES - length + 1);
                    readRemote[s] = at;
                    readLength[s] = length;
                    mr.setMemory(slot, length, (byte)0);
                    return send.opcode(Opcode.RDMA_READ).sge(mr, slot, length).remote(remoteAddress + at, rkey);
                }
                case ATOMIC:
                {
                    final boolean cas = random.nextBoolean();
                    return send.opcode(cas ? Opcode.ATOMIC_CMP_AND_SWP : Opcode.ATOMIC_FETCH_AND_ADD)
                        .sge(mr, slot, 8).remote(remoteAddress, rkey).atomic(cas ? wrId : 1, wrId + 1);
                }
                default:
                    throw new IllegalStateException(kind.name());
            }
        }

        private String checkSuccess(final MemoryRegion mr, final long wrId, final int byteLength)
        {
            final int s = (int)(wrId % DEPTH);
            final long slot = (long)s * SLOT;
            switch (kind)
            {
                case READ:
                {
                    final long bad = Messages.firstPatternMismatch(mr, slot, readRemote[s], readLength[s]);
                    return bad < 0 ? null : "READ " + wrId + " brought a wrong byte at " + bad + " of " + readLength[s];
                }
                case ATOMIC:
                {
                    final long old = mr.getLong(slot);
                    return old == wrId ? null : "atomic " + wrId + " returned " + old + ", expected " + wrId;
                }
                case RECV:
                {
                    final String wrong = Messages.checkSend(mr, slot, byteLength, expectedRecvSeq++);
                    return null == wrong ? null : "received message " + wrId + ": " + wrong;
                }
                default:
                    return null;
            }
        }
    }
}

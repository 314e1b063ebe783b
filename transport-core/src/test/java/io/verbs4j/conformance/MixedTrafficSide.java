// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.conformance;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import io.verbs4j.Access;
import io.verbs4j.CompletionHandler;
import io.verbs4j.CompletionQueue;
import io.verbs4j.Device;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.PostList;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.QpState;
import io.verbs4j.QueuePair;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.RecvRequest;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;

/**
 * One side of the mixed two-way stress: a queue pair (up to {@link #SEND_DEPTH} requests in flight, receives always
 * posted), its regions, and the round loop that posts this side's {@link MixedSchedule} while checking everything
 * that comes back: each completion's status, opcode, length and order (signaled completions in posting order, an
 * unsignaled request counted complete when a later one completes), every byte a READ scattered (and the canaries
 * around it), every atomic's returned value, and every receive (order, opcode, length, immediate data, bytes). After a
 * round, {@link #verifyIncoming(int)} checks what the other side did to this side's memory: every byte of its WRITEs
 * and the final values of its atomics. Requests go out alone or in {@link PostList}s of 2 to {@link #LIST_MAX}
 * (the length cycles with the position), so that lists cross back-pressure, direct posts and every opcode mix.
 * <p>
 * Used by the test's JVM (role 0, connects) and by the {@link Peer} (role 1, accepts), one thread per side: the
 * thread that runs a round is the only one that polls the completion queue, which drives polling-mode providers.
 */
public final class MixedTrafficSide implements AutoCloseable
{
    /** Requests in flight at most. */
    public static final int SEND_DEPTH = 128;
    /** Receives posted at all times. */
    public static final int RECV_DEPTH = 256;
    /** Longest post list used. */
    public static final int LIST_MAX = 4;
    /** A round fails if nothing completes for this long. */
    public static final long STALL_MS = 15_000;
    private static final int REMOTE_ACCESS = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ |
        Access.REMOTE_ATOMIC;

    private final MixedSchedule.Limits limits;
    private final long seed;
    private final int role;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private final MemoryRegion local;
    private final MemoryRegion writeTarget;
    private final MemoryRegion readSource;
    private final MemoryRegion atomics;
    private final MemoryRegion recvs;
    private final SendRequest request = new SendRequest(MixedSchedule.MAX_SGES);
    private final SendRequest[] listRequests = new SendRequest[LIST_MAX];
    private final PostList<SendRequest> list = new PostList<>(LIST_MAX);
    private final RecvRequest recv = new RecvRequest(1);
    private final byte[] expected = new byte[MixedSchedule.MAX_LENGTH];
    private final byte[] actual = new byte[MixedSchedule.MAX_LENGTH + MixedSchedule.GAP];
    private final byte[] peerReadRegion = new byte[MixedSchedule.READ_REGION_LENGTH];
    private final CompletionHandler handler = this::onCompletion;
    private long remoteWriteAddress;
    private int remoteWriteRkey;
    private long remoteReadAddress;
    private int remoteReadRkey;
    private long remoteAtomicAddress;
    private int remoteAtomicRkey;
    private long recvsPosted;
    private long recvsCompleted;
    private long operations;
    private long bytesChecked;

    private int round;
    private MixedSchedule mine;
    private MixedSchedule theirs;
    private int completedThrough;
    private int recvsThisRound;
    private String failure;

    /**
     * Makes the queue pair (in INIT, with {@link #RECV_DEPTH} receives posted) and the regions.
     *
     * @param device  the device.
     * @param pd      the protection domain for the queue pair and the regions.
     * @param limits  limits both sides use.
     * @param seed    the run's seed.
     * @param role    0 for the side that connects, 1 for the side that accepts.
     * @param rounds  most rounds that will run (sizes the atomic region).
     */
    public MixedTrafficSide(
        final Device device, final ProtectionDomain pd, final MixedSchedule.Limits limits, final long seed,
        final int role, final int rounds)
    {
        this.limits = limits;
        this.seed = seed;
        this.role = role;
        for (int i = 0; i < LIST_MAX; i++)
        {
            listRequests[i] = new SendRequest(MixedSchedule.MAX_SGES);
        }
        final int ops = limits.operations();
        cq = device.createCompletionQueue(2 * (SEND_DEPTH + RECV_DEPTH));
        qp = pd.createQueuePair(new QueuePairConfig(cq).sendDepth(SEND_DEPTH).recvDepth(RECV_DEPTH)
            .maxSendSge(limits.maxSges()).maxRecvSge(1).maxInlineLength(limits.maxInline())
            .rnrRetry(QueuePairConfig.RNR_RETRY_INFINITE));
        local = pd.allocate((long)ops * MixedSchedule.MAX_SLOT, Access.LOCAL_WRITE);
        writeTarget = pd.allocate((long)ops * MixedSchedule.MAX_LENGTH, REMOTE_ACCESS);
        readSource = pd.allocate(MixedSchedule.READ_REGION_LENGTH, REMOTE_ACCESS);
        atomics = pd.allocate((long)Math.max(1, rounds) * MixedSchedule.ATOMIC_SLOT, REMOTE_ACCESS);
        recvs = pd.allocate((long)RECV_DEPTH * MixedSchedule.MAX_LENGTH, Access.LOCAL_WRITE);
        final byte[] content = new byte[MixedSchedule.READ_REGION_LENGTH];
        MixedSchedule.payload(MixedSchedule.readRegionKey(seed, role), content, 0, content.length);
        readSource.putBytes(0, content, 0, content.length);
        MixedSchedule.payload(MixedSchedule.readRegionKey(seed, 1 - role), peerReadRegion, 0, content.length);
        qp.modify(QpState.INIT);
        for (int i = 0; i < RECV_DEPTH; i++)
        {
            final int rc = postRecv();
            if (QueuePair.OK != rc)
            {
                throw new IllegalStateException("postRecv returned " + QueuePair.describe(rc));
            }
        }
    }

    /** @return the queue pair, to connect or accept. */
    public QueuePair queuePair()
    {
        return qp;
    }

    /** @return the addresses and rkeys the other side needs, as one space-free token. */
    public String localInfo()
    {
        return writeTarget.address() + "," + writeTarget.rkey() + "," + readSource.address() + "," +
            readSource.rkey() + "," + atomics.address() + "," + atomics.rkey();
    }

    /**
     * @param info the other side's {@link #localInfo()}.
     */
    public void remote(final String info)
    {
        final String[] f = info.split(",");
        remoteWriteAddress = Long.parseLong(f[0]);
        remoteWriteRkey = Integer.parseInt(f[1]);
        remoteReadAddress = Long.parseLong(f[2]);
        remoteReadRkey = Integer.parseInt(f[3]);
        remoteAtomicAddress = Long.parseLong(f[4]);
        remoteAtomicRkey = Integer.parseInt(f[5]);
    }

    /** @return requests this side completed, over all rounds. */
    public long operations()
    {
        return operations;
    }

    /** @return payload bytes this side compared, over all rounds. */
    public long bytesChecked()
    {
        return bytesChecked;
    }

    /**
     * Posts this side's schedule of round {@code r} and checks what comes back, until every request completed and
     * every receive the other side's schedule produces arrived.
     *
     * @param r the round.
     * @return null if all was right, else what went wrong first (with the role, round and operation).
     */
    public String runRound(final int r)
    {
        round = r;
        mine = MixedSchedule.generate(limits, seed, role, r);
        theirs = MixedSchedule.generate(limits, seed, 1 - role, r);
        completedThrough = -1;
        recvsThisRound = 0;
        failure = null;
        prepareLocalSlots();
        final int n = mine.count();
        int posted = 0;
        long lastProgressNs = System.nanoTime();
        int idle = 0;
        while (null == failure && (completedThrough < n - 1 || recvsThisRound < theirs.recvCount()))
        {
            int work = 0;
            while (posted < n && posted - (completedThrough + 1) < SEND_DEPTH)
            {
                final int room = Math.min(n - posted, SEND_DEPTH - (posted - (completedThrough + 1)));
                final int length = Math.min(room, 1 + (posted + r) % LIST_MAX);
                final int rc;
                final int accepted;
                if (1 == length)
                {
                    rc = qp.postSend(fill(request, posted));
                    accepted = QueuePair.OK == rc ? 1 : 0;
                }
                else
                {
                    list.clear();
                    for (int k = 0; k < length; k++)
                    {
                        list.add(fill(listRequests[k], posted + k));
                    }
                    rc = qp.postSend(list);
                    accepted = list.accepted();
                    if ((QueuePair.OK == rc) != (length == accepted) || rc != list.status())
                    {
                        return fail(mine.describe(posted) + ": post list returned " + QueuePair.describe(rc) +
                            " with " + accepted + " of " + length + " accepted");
                    }
                }
                posted += accepted;
                work += accepted;
                if (QueuePair.BACK_PRESSURED == rc)
                {
                    break;
                }
                if (QueuePair.OK != rc)
                {
                    return fail(mine.describe(posted) + ": postSend returned " + QueuePair.describe(rc) +
                        " (QP " + qp.state() + ")");
                }
            }
            work += cq.poll(handler, 64);
            if (work > 0)
            {
                lastProgressNs = System.nanoTime();
                idle = 0;
            }
            else if (System.nanoTime() - lastProgressNs > TimeUnit.MILLISECONDS.toNanos(STALL_MS))
            {
                return fail("stalled for " + STALL_MS + " ms: posted " + posted + " of " + n + ", complete through " +
                    "op#" + completedThrough + ", receives " + recvsThisRound + " of " + theirs.recvCount() +
                    ", QP " + qp.state());
            }
            else if (++idle > 1_000)
            {
                // Two JVMs share few cores with their I/O threads: back off to a short park while nothing happens.
                java.util.concurrent.locks.LockSupport.parkNanos(50_000);
            }
            else if (idle > 100)
            {
                Thread.yield();
            }
        }
        return null == failure ? null : prefix() + failure;
    }

    /**
     * After this side's round, until the other side's is done too: polls the completion queue once. That drives a
     * provider whose progress comes from polling (the other side's requests may still need this side's progress) and
     * proves that nothing more completes.
     *
     * @return null, or what completed although nothing was due (with the role and round).
     */
    public String idlePoll()
    {
        if (null == failure)
        {
            cq.poll(handler, 16);
        }
        return null == failure ? null : prefix() + failure;
    }

    /**
     * After both sides finished round {@code r}: checks every byte the other side's WRITEs of that round put into this
     * side's write region, and this side's counters its atomics worked on.
     *
     * @param r the round.
     * @return null if all was right, else the first difference.
     */
    public String verifyIncoming(final int r)
    {
        final MixedSchedule other = MixedSchedule.generate(limits, seed, 1 - role, r);
        for (int i = 0; i < other.count(); i++)
        {
            final int op = other.opcode(i);
            if (Opcode.RDMA_WRITE != op && Opcode.RDMA_WRITE_WITH_IMM != op)
            {
                continue;
            }
            final int len = other.length(i);
            MixedSchedule.payload(other.payloadKey(i), expected, 0, len);
            writeTarget.getBytes(other.remoteOffset(i), actual, 0, len);
            final int at = firstDifference(expected, actual, len);
            if (at >= 0)
            {
                return "role " + role + " round " + r + ": incoming " + other.describe(i) + " from role " +
                    (1 - role) + " landed wrong at byte " + at + " of " + len;
            }
            bytesChecked += len;
        }
        final long add = atomics.getLongVolatile(other.atomicOffset(0));
        final long swapped = atomics.getLongVolatile(other.atomicOffset(1));
        if (add != other.finalAdd() || swapped != other.finalSwap())
        {
            return "role " + role + " round " + r + ": counters after role " + (1 - role) + "'s atomics are " + add +
                "/" + swapped + ", expected " + other.finalAdd() + "/" + other.finalSwap();
        }
        return null;
    }

    /** Closes the queue pair, the regions and the completion queue. */
    public void close()
    {
        qp.close();
        local.close();
        writeTarget.close();
        readSource.close();
        atomics.close();
        recvs.close();
        cq.close();
    }

    private String prefix()
    {
        return "role " + role + " round " + round + ": ";
    }

    private String fail(final String what)
    {
        if (null == failure)
        {
            failure = what;
        }
        return prefix() + failure;
    }

    /** Canaries everywhere, then the payloads of this round's SEND/WRITE sources in their SGE pieces. */
    private void prepareLocalSlots()
    {
        local.setMemory(0, mine.localLength(), MixedSchedule.CANARY);
        for (int i = 0; i < mine.count(); i++)
        {
            final int op = mine.opcode(i);
            if (Opcode.RDMA_READ == op || Opcode.isAtomic(op))
            {
                continue;
            }
            MixedSchedule.payload(mine.payloadKey(i), expected, 0, mine.length(i));
            int from = 0;
            for (int k = 0; k < mine.sgeCount(i); k++)
            {
                local.putBytes(mine.sgeOffset(i, k), expected, from, mine.sgeLength(i, k));
                from += mine.sgeLength(i, k);
            }
        }
    }

    private SendRequest fill(final SendRequest target, final int i)
    {
        final int op = mine.opcode(i);
        target.clearSges().wrId(wrId(i)).opcode(op)
            .flags((mine.signaled(i) ? SendRequest.SIGNALED : 0) | (mine.inline(i) ? SendRequest.INLINE : 0));
        for (int k = 0; k < mine.sgeCount(i); k++)
        {
            target.sge(local, mine.sgeOffset(i, k), mine.sgeLength(i, k));
        }
        switch (op)
        {
            case Opcode.RDMA_WRITE:
            case Opcode.RDMA_WRITE_WITH_IMM:
                target.remote(remoteWriteAddress + mine.remoteOffset(i), remoteWriteRkey);
                break;
            case Opcode.RDMA_READ:
                target.remote(remoteReadAddress + mine.remoteOffset(i), remoteReadRkey);
                break;
            case Opcode.ATOMIC_FETCH_AND_ADD:
                target.remote(remoteAtomicAddress + mine.atomicOffset(0), remoteAtomicRkey)
                    .atomic(mine.compareAdd(i), 0);
                break;
            case Opcode.ATOMIC_CMP_AND_SWP:
                target.remote(remoteAtomicAddress + mine.atomicOffset(1), remoteAtomicRkey)
                    .atomic(mine.compareAdd(i), mine.swap(i));
                break;
            default:
                break;
        }
        if (Opcode.hasImmediate(op))
        {
            target.immediateData(mine.immediate(i));
        }
        return target;
    }

    private long wrId(final int i)
    {
        return ((long)round << 32) | i;
    }

    private int postRecv()
    {
        final long wrId = recvsPosted++;
        recv.clearSges().wrId(wrId).sge(recvs, (wrId % RECV_DEPTH) * MixedSchedule.MAX_LENGTH,
            MixedSchedule.MAX_LENGTH);
        return qp.postRecv(recv);
    }

    private void onCompletion(
        final long wrId, final int status, final int opcode, final int byteLength, final int immediate,
        final int flags, final int qpNumber)
    {
        if (null != failure)
        {
            return;
        }
        if (Opcode.RECV == opcode || Opcode.RECV_RDMA_WITH_IMM == opcode)
        {
            onRecv(wrId, status, opcode, byteLength, immediate, flags);
        }
        else
        {
            onSendCompletion(wrId, status, opcode, byteLength);
        }
    }

    private void onSendCompletion(final long wrId, final int status, final int opcode, final int byteLength)
    {
        final int n = mine.count();
        int next = completedThrough + 1;
        while (next < n && !mine.signaled(next))
        {
            next++;
        }
        final int i = (int)wrId;
        final boolean known = (wrId >>> 32) == round && i >= 0 && i < n;
        final String what = known ? mine.describe(i) : "wrId " + Long.toHexString(wrId);
        if (WcStatus.SUCCESS != status)
        {
            fail(what + " completed with " + WcStatus.name(status) + " (QP " + qp.state() + ")");
            return;
        }
        if (!known || i != next)
        {
            fail(what + " completed where " + (next < n ? mine.describe(next) : "nothing") + " was due");
            return;
        }
        final int expectedLength = Opcode.isAtomic(mine.opcode(i)) ? 8 : mine.length(i);
        if (opcode != mine.opcode(i) || byteLength != expectedLength)
        {
            fail(what + " completed as " + Opcode.name(opcode) + " of " + byteLength + " bytes");
            return;
        }
        for (int j = completedThrough + 1; j <= i && null == failure; j++)
        {
            checkResult(j);
            operations++;
        }
        completedThrough = i;
    }

    /** Request {@code i} is complete: its READ bytes (and the canaries around them) or its atomic's result. */
    private void checkResult(final int i)
    {
        final int op = mine.opcode(i);
        if (Opcode.isAtomic(op))
        {
            final long value = local.getLong(mine.sgeOffset(i, 0));
            if (value != mine.expectedAtomic(i))
            {
                fail(mine.describe(i) + " returned " + value + ", expected " + mine.expectedAtomic(i));
            }
            return;
        }
        if (Opcode.RDMA_READ != op)
        {
            return;
        }
        int from = (int)mine.remoteOffset(i);
        for (int k = 0; k < mine.sgeCount(i); k++)
        {
            final int len = mine.sgeLength(i, k);
            local.getBytes(mine.sgeOffset(i, k) - MixedSchedule.GAP, actual, 0, len + MixedSchedule.GAP);
            for (int g = 0; g < MixedSchedule.GAP; g++)
            {
                if (MixedSchedule.CANARY != actual[g])
                {
                    fail(mine.describe(i) + " wrote the canary before SGE " + k);
                    return;
                }
            }
            for (int b = 0; b < len; b++)
            {
                if (peerReadRegion[from + b] != actual[MixedSchedule.GAP + b])
                {
                    fail(mine.describe(i) + " read a wrong byte at " + b + " of SGE " + k + " (remote offset " +
                        (from + b) + ")");
                    return;
                }
            }
            from += len;
            bytesChecked += len;
        }
        final long end = mine.sgeOffset(i, mine.sgeCount(i) - 1) + mine.sgeLength(i, mine.sgeCount(i) - 1);
        final long slotEnd = i + 1 < mine.count() ? mine.localOffset(i + 1) : mine.localLength();
        for (long p = end; p < slotEnd; p++)
        {
            if (MixedSchedule.CANARY != local.getByte(p))
            {
                fail(mine.describe(i) + " wrote past its last SGE");
                return;
            }
        }
    }

    private void onRecv(
        final long wrId, final int status, final int opcode, final int byteLength, final int immediate,
        final int flags)
    {
        if (WcStatus.SUCCESS != status)
        {
            fail("receive " + wrId + " completed with " + WcStatus.name(status) + " (QP " + qp.state() + ")");
            return;
        }
        if (wrId != recvsCompleted)
        {
            fail("receive " + wrId + " completed where receive " + recvsCompleted + " was due");
            return;
        }
        if (recvsThisRound >= theirs.recvCount())
        {
            fail("receive " + wrId + " completed beyond the " + theirs.recvCount() + " the other side sends");
            return;
        }
        final int i = theirs.recvConsumer(recvsThisRound);
        final int op = theirs.opcode(i);
        final String what = "receive " + wrId + " for role " + (1 - role) + "'s " + theirs.describe(i);
        final int expectedOpcode = Opcode.RDMA_WRITE_WITH_IMM == op ? Opcode.RECV_RDMA_WITH_IMM : Opcode.RECV;
        final boolean withImm = Opcode.hasImmediate(op);
        if (opcode != expectedOpcode || byteLength != theirs.length(i) ||
            withImm != (0 != (flags & CompletionHandler.WITH_IMM)) || (withImm && immediate != theirs.immediate(i)))
        {
            fail(what + ": got " + Opcode.name(opcode) + " of " + byteLength + " bytes, flags " + flags +
                ", immediate " + immediate);
            return;
        }
        if (Opcode.RDMA_WRITE_WITH_IMM != op)
        {
            final int len = theirs.length(i);
            MixedSchedule.payload(theirs.payloadKey(i), expected, 0, len);
            recvs.getBytes((wrId % RECV_DEPTH) * MixedSchedule.MAX_LENGTH, actual, 0, len);
            final int at = firstDifference(expected, actual, len);
            if (at >= 0)
            {
                fail(what + ": wrong byte at " + at + " of " + len);
                return;
            }
            bytesChecked += len;
        }
        recvsCompleted++;
        recvsThisRound++;
        final int rc = postRecv();
        if (QueuePair.OK != rc)
        {
            fail("postRecv returned " + QueuePair.describe(rc) + " (QP " + qp.state() + ")");
        }
    }

    private static int firstDifference(final byte[] a, final byte[] b, final int length)
    {
        final int at = Arrays.mismatch(a, 0, length, b, 0, length);
        return at;
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.system;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.verbs4j.Access;
import io.verbs4j.CompletionBatch;
import io.verbs4j.CompletionQueue;
import io.verbs4j.Device;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.QueuePair;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.SendRequest;
import io.verbs4j.Verbs;
import io.verbs4j.WcStatus;
import io.verbs4j.launch.ChildJvm;
import io.verbs4j.system.support.Messages;
import io.verbs4j.system.support.SystemTests;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Data is delivered intact or reported failed, never silently corrupted: long streams between this JVM and a
 * {@link FaultPeerMain} process over each provider, with random sizes (log-uniform from 0 B to 1 MiB, so inline,
 * eager, rendezvous and fragmented paths all run) and random payloads, each carrying its CRC32C:
 * <ul>
 *   <li>SEND: the peer checks every message's CRC32C, length and sequence;</li>
 *   <li>WRITE: each unsignaled RDMA WRITE to a fresh place is followed by a signaled 32-byte inline SEND describing
 *       it (place, length, CRC32C); the peer checks the written bytes when the descriptor arrives (RC ordering);</li>
 *   <li>READ: every written range is then read back and its CRC32C compared with the sender's.</li>
 * </ul>
 * Default {@code verbs4j.faults.checksumMiB} per provider and opcode; {@code slow}: {@code
 * verbs4j.faults.slowChecksumMiB}
 * (1 GiB each). Figures go to {@code target/reliability/checksums.txt}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ChecksumSystemTest
{
    private static final String REPORT = "checksums.txt";
    private static final int MAX_MESSAGE = 1 << 20;
    private static final int SLOT = Messages.HEADER_LENGTH + MAX_MESSAGE;
    private static final int WINDOW = 32;
    private static final int RECV_DEPTH = 64;

    private Path shmDir;

    @BeforeAll
    void dir()
    {
        shmDir = SystemTests.newShmDir("checksums");
        SystemTests.report(REPORT, SystemTests.runHeader());
    }

    @AfterAll
    void removeDir()
    {
        SystemTests.deleteDir(shmDir);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp"})
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void everyMessageArrivesIntact(final String provider)
    {
        stream(provider, SystemTests.intProperty("verbs4j.faults.checksumMiB", 64));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp"})
    @Tag("slow")
    @Timeout(value = 60, unit = TimeUnit.MINUTES)
    void oneGibibyteOfEachArrivesIntact(final String provider)
    {
        stream(provider, SystemTests.intProperty("verbs4j.faults.slowChecksumMiB", 1024));
    }

    private void stream(final String provider, final int mib)
    {
        final long total = (long)mib << 20;
        final SplittableRandom random = new SplittableRandom(SystemTests.seed() ^ provider.hashCode());
        final byte[] pool = new byte[MAX_MESSAGE + 65536];
        random.nextBytes(pool);
        try (ChildJvm child = new ChildJvm("checksum peer", List.of("-Xmx256m"), FaultPeerMain.class,
            SystemTests.peerArgs(provider, shmDir));
            Device device = Verbs.open(provider, SystemTests.context(provider, shmDir)))
        {
            final String endpoint = child.call("LISTEN cs-" + ProcessHandle.current().pid() + "-" + provider);
            final String[] region = child.call("SERVE 1 " + RECV_DEPTH + " " + SLOT + " " + (total + MAX_MESSAGE) +
                " 0 same").split(" ");
            final long remoteAddress = Long.parseLong(region[0]);
            final int rkey = Integer.parseInt(region[1]);
            final ProtectionDomain pd = device.allocateProtectionDomain();
            final CompletionQueue cq = device.createCompletionQueue(1024);
            final QueuePair qp = pd.createQueuePair(new QueuePairConfig(cq).sendDepth(2 * WINDOW).recvDepth(1)
                .maxInlineLength(Messages.DESCRIPTOR_LENGTH).rnrRetry(QueuePairConfig.RNR_RETRY_INFINITE));
            final MemoryRegion mr = pd.allocate((long)WINDOW * SLOT, Access.LOCAL_WRITE);
            device.connectionManager().connect(qp, endpoint, new byte[0], Duration.ofSeconds(30));

            // SEND stream.
            long start = System.nanoTime();
            final long[] sent = sendStream(qp, cq, mr, random, pool, total);
            expectReceived(child, sent[0], 0);
            report(provider, "SEND", sent[0], sent[1], start);

            // WRITE stream, then READ everything back.
            start = System.nanoTime();
            final WriteLog log = writeStream(qp, cq, mr, random, pool, total, remoteAddress, rkey);
            expectReceived(child, sent[0] + log.count, 0);
            report(provider, "WRITE", log.count, log.bytes, start);
            start = System.nanoTime();
            readBack(qp, cq, mr, log, remoteAddress, rkey);
            report(provider, "READ", log.count, log.bytes, start);
        }
    }

    private static int size(final SplittableRandom random)
    {
        // Log-uniform over [0, 1 MiB]: as many 10-byte as 100-KiB messages.
        return Math.min(MAX_MESSAGE, (int)Math.pow(2, random.nextDouble() * 20.0) - 1 + random.nextInt(2));
    }

    private static long[] sendStream(final QueuePair qp, final CompletionQueue cq, final MemoryRegion mr,
        final SplittableRandom random, final byte[] pool, final long total)
    {
        final SendRequest send = new SendRequest(1).opcode(Opcode.SEND);
        final CompletionBatch batch = new CompletionBatch(WINDOW);
        long posted = 0;
        long completed = 0;
        long bytes = 0;
        while (bytes < total || completed < posted)
        {
            while (bytes < total && posted - completed < WINDOW)
            {
                final int length = (int)Math.min(size(random), total - bytes);
                final long slot = (posted % WINDOW) * SLOT;
                Messages.writeSend(mr, slot, posted, pool, random.nextInt(65536), length);
                check(qp.postSend(send.clearSges().wrId(posted).sge(mr, slot, Messages.HEADER_LENGTH + length)));
                posted++;
                bytes += length;
            }
            completed += drain(cq, batch);
        }
        return new long[]{posted, bytes};
    }

    /** What was written where, for the READ back. */
    private static final class WriteLog
    {
        long count;
        long bytes;
        long[] offsets = new long[1024];
        int[] lengths = new int[1024];
        int[] crcs = new int[1024];

        void add(final long offset, final int length, final int crc)
        {
            if (count == offsets.length)
            {
                offsets = java.util.Arrays.copyOf(offsets, 2 * offsets.length);
                lengths = java.util.Arrays.copyOf(lengths, 2 * lengths.length);
                crcs = java.util.Arrays.copyOf(crcs, 2 * crcs.length);
            }
            offsets[(int)count] = offset;
            lengths[(int)count] = length;
            crcs[(int)count] = crc;
            count++;
            bytes += length;
        }
    }

    private static WriteLog writeStream(final QueuePair qp, final CompletionQueue cq, final MemoryRegion mr,
        final SplittableRandom random, final byte[] pool, final long total, final long remoteAddress, final int rkey)
    {
        final WriteLog log = new WriteLog();
        final SendRequest write = new SendRequest(1).opcode(Opcode.RDMA_WRITE).flags(0);
        final SendRequest descriptor = new SendRequest(1).opcode(Opcode.SEND)
            .flags(SendRequest.SIGNALED | SendRequest.INLINE);
        final CompletionBatch batch = new CompletionBatch(WINDOW);
        long posted = 0;
        long completed = 0;
        long cursor = 0;
        while (cursor < total || completed < posted)
        {
            while (cursor < total && posted - completed < WINDOW)
            {
                final int length = (int)Math.min(Math.max(1, size(random)), total - cursor);
                final long slot = (posted % WINDOW) * SLOT;
                final long data = slot + Messages.DESCRIPTOR_LENGTH;
                mr.putBytes(data, pool, random.nextInt(65536), length);
                final int crc = Messages.crc(mr, data, length);
                mr.putInt(slot + Messages.MAGIC_OFFSET, Messages.WRITE_MAGIC);
                mr.putInt(slot + Messages.LENGTH_OFFSET, length);
                mr.putLong(slot + Messages.SEQ_OFFSET, posted);
                mr.putInt(slot + Messages.CRC_OFFSET, crc);
                mr.putLong(slot + Messages.REMOTE_OFFSET_OFFSET, cursor);
                check(qp.postSend(write.clearSges().wrId(-1).sge(mr, data, length).remote(remoteAddress + cursor,
                    rkey)));
                check(qp.postSend(descriptor.clearSges().wrId(posted).sge(mr, slot, Messages.DESCRIPTOR_LENGTH)));
                log.add(cursor, length, crc);
                posted++;
                cursor += length;
            }
            completed += drain(cq, batch);
        }
        return log;
    }

    private static void readBack(final QueuePair qp, final CompletionQueue cq, final MemoryRegion mr,
        final WriteLog log, final long remoteAddress, final int rkey)
    {
        final SendRequest read = new SendRequest(1).opcode(Opcode.RDMA_READ);
        final CompletionBatch batch = new CompletionBatch(WINDOW);
        long posted = 0;
        long checked = 0;
        while (checked < log.count)
        {
            while (posted < log.count && posted - checked < WINDOW)
            {
                final int i = (int)posted;
                final long slot = (posted % WINDOW) * SLOT;
                mr.setMemory(slot, log.lengths[i], (byte)0);
                check(qp.postSend(read.clearSges().wrId(posted).sge(mr, slot, log.lengths[i])
                    .remote(remoteAddress + log.offsets[i], rkey)));
                posted++;
            }
            final int n = cq.poll(batch);
            for (int k = 0; k < n; k++)
            {
                assertEquals(WcStatus.name(WcStatus.SUCCESS), WcStatus.name(batch.status(k)));
                final int i = (int)batch.wrId(k);
                assertEquals(checked, i, "READ completions in order");
                final int crc = Messages.crc(mr, (i % WINDOW) * (long)SLOT, log.lengths[i]);
                if (crc != log.crcs[i])
                {
                    fail("READ back of write " + i + " (" + log.lengths[i] + " B at " + log.offsets[i] +
                        ") has CRC32C " + Integer.toHexString(crc) + ", written " + Integer.toHexString(log.crcs[i]));
                }
                checked++;
            }
            if (0 == n)
            {
                LockSupport.parkNanos(5_000);
            }
        }
    }

    private static int drain(final CompletionQueue cq, final CompletionBatch batch)
    {
        final int n = cq.poll(batch);
        for (int k = 0; k < n; k++)
        {
            if (WcStatus.SUCCESS != batch.status(k))
            {
                fail("completion " + batch.wrId(k) + " failed: " + WcStatus.name(batch.status(k)));
            }
        }
        if (0 == n)
        {
            LockSupport.parkNanos(5_000);
        }
        return n;
    }

    private static void expectReceived(final ChildJvm child, final long messages, final long expectedBad)
    {
        final long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        String[] stats;
        do
        {
            stats = child.call("STATS").split(" ");
            assertEquals(List.of(), child.badLines(), "the peer saw corrupted messages");
            if (Long.parseLong(stats[0]) >= messages)
            {
                break;
            }
            LockSupport.parkNanos(20_000_000);
        }
        while (System.nanoTime() < deadline);
        assertEquals(messages, Long.parseLong(stats[0]), "messages the peer received and checked");
        assertEquals(expectedBad, Long.parseLong(stats[2]), "messages with a wrong CRC32C, length or sequence");
        assertEquals(0, Long.parseLong(stats[3]), "failed receive completions at the peer");
    }

    private static void report(final String provider, final String kind, final long messages, final long bytes,
        final long startNs)
    {
        final double seconds = (System.nanoTime() - startNs) / 1e9;
        SystemTests.report(REPORT, String.format("%s %s: %d messages, %d bytes (%.0f MiB) intact, 0 corrupted, " +
            "%.1f s, %.0f MiB/s", provider, kind, messages, bytes, bytes / 1048576.0, seconds,
            bytes / 1048576.0 / seconds));
    }

    private static void check(final int rc)
    {
        assertEquals(QueuePair.OK, rc, () -> "post: " + QueuePair.describe(rc));
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.util.List;

import io.verbs4j.Access;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.RecvRequest;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import io.verbs4j.stat.StatRegistry;
import io.verbs4j.stat.StatSnapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The counters of shm devices move by the amounts of a known workload, and reach the counters file. */
@Timeout(60)
class ShmCountersTest extends ShmPairFixture
{
    private static final int[] SEND_LENGTHS = {100, 200, 300};
    private static final int[] WRITE_LENGTHS = {1000, 24};
    private static final int READ_LENGTH = 512;

    private long serverCounter(final ShmCounter counter)
    {
        return ((ShmDevice)serverDevice).counter(counter);
    }

    private long clientCounter(final ShmCounter counter)
    {
        return ((ShmDevice)clientDevice).counter(counter);
    }

    @Test
    void aKnownWorkloadMovesEachCounterByItsAmount()
    {
        setUpConnected();
        final MemoryRegion target = serverPd.allocate(MIB,
            Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC);
        final MemoryRegion source = clientPd.allocate(MIB, Access.LOCAL_WRITE);
        for (int i = 0; i < SEND_LENGTHS.length; i++)
        {
            check(server.postRecv(new RecvRequest(1).wrId(i).sge(target, i * 4096L, 4096)), server);
        }
        for (int i = 0; i < SEND_LENGTHS.length; i++)
        {
            check(client.postSend(new SendRequest(1).wrId(10 + i).opcode(Opcode.SEND).sge(source, 0, SEND_LENGTHS[i])),
                client);
            expect(clientCq, 10 + i, WcStatus.SUCCESS, Opcode.SEND);
            expect(serverCq, i, WcStatus.SUCCESS, Opcode.RECV);
        }
        for (int i = 0; i < WRITE_LENGTHS.length; i++)
        {
            check(client.postSend(new SendRequest(1).wrId(20 + i).opcode(Opcode.RDMA_WRITE)
                .sge(source, 0, WRITE_LENGTHS[i]).remote(target.address() + 65536, target.rkey())), client);
            expect(clientCq, 20 + i, WcStatus.SUCCESS, Opcode.RDMA_WRITE);
        }
        // A WRITE_WITH_IMM consumes a receive, but its bytes go to the region: received, not "received (SEND)".
        check(server.postRecv(new RecvRequest(1).wrId(50).sge(target, 0, 4096)), server);
        check(client.postSend(new SendRequest(1).wrId(50).opcode(Opcode.RDMA_WRITE_WITH_IMM).immediateData(9)
            .sge(source, 0, 64).remote(target.address() + 65536, target.rkey())), client);
        expect(clientCq, 50, WcStatus.SUCCESS, Opcode.RDMA_WRITE_WITH_IMM);
        expect(serverCq, 50, WcStatus.SUCCESS, Opcode.RECV_RDMA_WITH_IMM);
        check(client.postSend(new SendRequest(1).wrId(30).opcode(Opcode.RDMA_READ).sge(source, 4096, READ_LENGTH)
            .remote(target.address() + 65536, target.rkey())), client);
        expect(clientCq, 30, WcStatus.SUCCESS, Opcode.RDMA_READ);
        check(client.postSend(new SendRequest(1).wrId(40).opcode(Opcode.ATOMIC_FETCH_AND_ADD).sge(source, 8192, 8)
            .remote(target.address() + 131072, target.rkey()).atomic(5, 0)), client);
        expect(clientCq, 40, WcStatus.SUCCESS, Opcode.ATOMIC_FETCH_AND_ADD);

        assertEquals(SEND_LENGTHS.length, clientCounter(ShmCounter.SENDS));
        assertEquals(WRITE_LENGTHS.length + 1, clientCounter(ShmCounter.RDMA_WRITES));
        assertEquals(1, clientCounter(ShmCounter.RDMA_READS));
        assertEquals(1, clientCounter(ShmCounter.ATOMICS));
        assertEquals(100 + 200 + 300 + 1000 + 24 + 64, clientCounter(ShmCounter.BYTES_SENT));
        assertEquals(READ_LENGTH, clientCounter(ShmCounter.BYTES_READ));
        assertEquals(SEND_LENGTHS.length + 1, serverCounter(ShmCounter.RECEIVES));
        assertEquals(100 + 200 + 300, serverCounter(ShmCounter.BYTES_RECEIVED));
        assertEquals(0, serverCounter(ShmCounter.SENDS), "the server sent nothing");
        assertEquals(0, clientCounter(ShmCounter.RECEIVES), "the client received nothing");
        for (final ShmDevice device : List.of((ShmDevice)serverDevice, (ShmDevice)clientDevice))
        {
            assertEquals(1, device.counter(ShmCounter.CONNECTIONS_ESTABLISHED));
            assertEquals(1, device.counter(ShmCounter.SEGMENTS_CREATED));
            assertEquals(0, device.counter(ShmCounter.ERROR_COMPLETIONS));
            assertEquals(0, device.counter(ShmCounter.RNR_NAKS_SENT));
            assertEquals(0, device.counter(ShmCounter.CONNECTIONS_FAILED));
        }

        client.close();
        assertEquals(SEND_LENGTHS.length, clientCounter(ShmCounter.SENDS), "a closed queue pair's counts stay");
        assertEquals(100 + 200 + 300 + 1000 + 24 + 64, clientCounter(ShmCounter.BYTES_SENT));
        target.close();
        source.close();
    }

    @Test
    void aSendWithoutAReceiveCountsRnrNaksAndOneErrorCompletion()
    {
        setUp(ShmTestSupport.context(dir(), true), (s, c) -> c.rnrRetry(1).rnrTimerNs(1_000));
        check(client.postSend(new SendRequest(1).wrId(1)), client);
        check(client.postSend(new SendRequest(1).wrId(2)), client);
        expect(clientCq, 1, WcStatus.RNR_RETRY_EXC_ERR, Opcode.SEND);
        expect(clientCq, 2, WcStatus.WR_FLUSH_ERR, Opcode.SEND);

        assertEquals(2, serverCounter(ShmCounter.RNR_NAKS_SENT), "refused once, then once more on the one retry");
        assertEquals(1, clientCounter(ShmCounter.ERROR_COMPLETIONS), "the flush of request 2 is not counted");
        assertEquals(1, clientCounter(ShmCounter.CONNECTIONS_FAILED));
        assertEquals(0, serverCounter(ShmCounter.RECEIVES));
    }

    @Test
    void eachOpenDeviceIsAGroupOfTheCountersFile()
    {
        setUpConnected();
        final MemoryRegion region = serverPd.allocate(4096, Access.LOCAL_WRITE);
        final MemoryRegion source = clientPd.allocate(4096, Access.LOCAL_WRITE);
        check(server.postRecv(new RecvRequest(1).wrId(1).sge(region, 0, 4096)), server);
        check(client.postSend(new SendRequest(1).wrId(2).opcode(Opcode.SEND).sge(source, 0, 77)), client);
        expect(serverCq, 1, WcStatus.SUCCESS, Opcode.RECV);

        final List<StatSnapshot.Counter> counters = StatRegistry.sample();
        assertTrue(counters.stream().anyMatch(c -> c.group().startsWith("shm device ") &&
            c.label().equals("payload bytes received (SEND)") && 77 == c.value()), counters::toString);
        assertTrue(counters.stream().anyMatch(c -> c.group().startsWith("shm device ") &&
            c.label().equals("SEND requests") && 1 == c.value()), counters::toString);
        final long groups = counters.stream().map(StatSnapshot.Counter::group).filter(g -> g.startsWith("shm device "))
            .distinct().count();

        source.close();
        clientDevice.close();
        clientDevice = null;
        final long after = StatRegistry.sample().stream().map(StatSnapshot.Counter::group)
            .filter(g -> g.startsWith("shm device ")).distinct().count();
        assertEquals(groups - 1, after, "a closed device's group leaves the counters file");
        region.close();
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.verbs4j.Access;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.QueuePair;
import io.verbs4j.RecvRequest;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A peer that takes a message and then closes its device at once (a server that exits after its last request):
 * the message was delivered, so the sender's SEND completes with SUCCESS, not with the flush the close causes for
 * what is still outstanding. Repeated, because it depends on whether the sender's progress saw the receive before
 * it saw the close.
 */
class ShmOrderlyCloseTest extends ShmPairFixture
{
    private static final int ROUNDS = 40;

    @ParameterizedTest(name = "progress thread {0}")
    @ValueSource(booleans = {true, false})
    void aSendThePeerReceivedBeforeClosingCompletesWithSuccess(final boolean progressThread)
    {
        for (int round = 0; round < ROUNDS; round++)
        {
            setUp(ShmTestSupport.context(dir(), progressThread), (s, c) -> { });
            final MemoryRegion src = clientPd.allocate(4096, Access.LOCAL_WRITE);
            final MemoryRegion dst = serverPd.allocate(4096, Access.LOCAL_WRITE);
            assertEquals(QueuePair.OK, server.postRecv(new RecvRequest(1).wrId(1).sge(dst, 0, 64)));
            assertEquals(QueuePair.OK, client.postSend(new SendRequest(1).wrId(2).opcode(Opcode.SEND)
                .sge(src, 0, 64)));
            expect(serverCq, 1, WcStatus.SUCCESS, Opcode.RECV);
            serverDevice.close();
            serverDevice = null;
            expect(clientCq, 2, WcStatus.SUCCESS, Opcode.SEND);
            closeAll();
            clientDevice = null;
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.nio.file.Path;

import io.verbs4j.CompletionBatch;
import io.verbs4j.CompletionQueue;
import io.verbs4j.Device;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.QpState;
import io.verbs4j.QueuePair;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.WcStatus;
import io.verbs4j.config.DeviceContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Two shm devices of this JVM ("server" and "client"), one connected queue-pair pair, and assertion helpers; each
 * test gets fresh devices and the segment directory must be empty after it.
 */
abstract class ShmPairFixture
{
    /** One mebibyte. */
    static final int MIB = 1 << 20;
    private static Path dir;
    private static int counter;

    Device serverDevice;
    Device clientDevice;
    ProtectionDomain serverPd;
    ProtectionDomain clientPd;
    CompletionQueue serverCq;
    CompletionQueue clientCq;
    QueuePair server;
    QueuePair client;
    final CompletionBatch batch = new CompletionBatch(64);

    @BeforeAll
    static void createDir()
    {
        dir = ShmTestSupport.newDir("pair");
    }

    @AfterAll
    static void deleteDir()
    {
        ShmTestSupport.deleteDir(dir);
    }

    static Path dir()
    {
        return dir;
    }

    @AfterEach
    void closeAll()
    {
        if (null != clientDevice)
        {
            clientDevice.close();
        }
        if (null != serverDevice)
        {
            serverDevice.close();
        }
        assertEquals(0, ShmTestSupport.fileCount(dir), "files left in " + dir);
    }

    void setUp(final DeviceContext context, final QueuePairConfigurer configurer)
    {
        serverDevice = io.verbs4j.Verbs.open("shm", context);
        clientDevice = io.verbs4j.Verbs.open("shm", context);
        serverPd = serverDevice.allocateProtectionDomain();
        clientPd = clientDevice.allocateProtectionDomain();
        serverCq = serverDevice.createCompletionQueue(4096);
        clientCq = clientDevice.createCompletionQueue(4096);
        final QueuePairConfig serverConfig = new QueuePairConfig(serverCq).maxSendSge(4).maxRecvSge(4)
            .maxInlineLength(256);
        final QueuePairConfig clientConfig = new QueuePairConfig(clientCq).maxSendSge(4).maxRecvSge(4)
            .maxInlineLength(256);
        configurer.configure(serverConfig, clientConfig);
        server = serverPd.createQueuePair(serverConfig);
        client = clientPd.createQueuePair(clientConfig);
        server.modify(QpState.INIT);
        client.modify(QpState.INIT);
        connect();
    }

    void setUpConnected()
    {
        setUp(ShmTestSupport.context(dir, true), (s, c) -> { });
    }

    void connect()
    {
        ShmTestSupport.connect(serverDevice, server, client, "pair" + (counter++), new byte[]{1}, new byte[]{2});
        assertEquals(QpState.RTS, server.state());
        assertEquals(QpState.RTS, client.state());
    }

    interface QueuePairConfigurer
    {
        void configure(QueuePairConfig server, QueuePairConfig client);
    }

    void expect(final CompletionQueue cq, final long wrId, final int status, final int opcode)
    {
        ShmTestSupport.pollOne(cq, batch);
        assertEquals(WcStatus.name(status), WcStatus.name(batch.status(0)), "status of wrId " + batch.wrId(0));
        assertEquals(wrId, batch.wrId(0));
        assertEquals(Opcode.name(opcode), Opcode.name(batch.opcode(0)));
    }

    static void fill(final MemoryRegion region, final long offset, final int length, final int seed)
    {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++)
        {
            bytes[i] = (byte)(seed + i * 31 + (i >>> 8));
        }
        region.putBytes(offset, bytes, 0, length);
    }

    static void check(final MemoryRegion region, final long offset, final int length, final int seed)
    {
        final byte[] bytes = new byte[length];
        region.getBytes(offset, bytes, 0, length);
        for (int i = 0; i < length; i++)
        {
            if ((byte)(seed + i * 31 + (i >>> 8)) != bytes[i])
            {
                throw new AssertionError("byte " + i + " differs");
            }
        }
    }

    static void sleep(final long ms)
    {
        try
        {
            Thread.sleep(ms);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    static QueuePair check(final int rc, final QueuePair qp)
    {
        assertEquals(QueuePair.OK, rc, () -> QueuePair.describe(rc));
        return qp;
    }
}

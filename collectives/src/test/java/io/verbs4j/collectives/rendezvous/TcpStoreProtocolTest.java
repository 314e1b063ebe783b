// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.rendezvous;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static io.verbs4j.collectives.rendezvous.TcpStoreProtocol.FLAGS_OFFSET;
import static io.verbs4j.collectives.rendezvous.TcpStoreProtocol.KEY_LENGTH_OFFSET;
import static io.verbs4j.collectives.rendezvous.TcpStoreProtocol.MAX_VALUE_LENGTH;
import static io.verbs4j.collectives.rendezvous.TcpStoreProtocol.OPCODE_OFFSET;
import static io.verbs4j.collectives.rendezvous.TcpStoreProtocol.OP_ADD;
import static io.verbs4j.collectives.rendezvous.TcpStoreProtocol.OP_GET;
import static io.verbs4j.collectives.rendezvous.TcpStoreProtocol.OP_SET;
import static io.verbs4j.collectives.rendezvous.TcpStoreProtocol.REQUEST_ARGUMENT_OFFSET;
import static io.verbs4j.collectives.rendezvous.TcpStoreProtocol.REQUEST_HEADER_LENGTH;
import static io.verbs4j.collectives.rendezvous.TcpStoreProtocol.REQUEST_VALUE_LENGTH_OFFSET;
import static io.verbs4j.collectives.rendezvous.TcpStoreProtocol.RESERVED_OFFSET;
import static io.verbs4j.collectives.rendezvous.TcpStoreProtocol.RESPONSE_ARGUMENT_OFFSET;
import static io.verbs4j.collectives.rendezvous.TcpStoreProtocol.RESPONSE_HEADER_LENGTH;
import static io.verbs4j.collectives.rendezvous.TcpStoreProtocol.RESPONSE_VALUE_LENGTH_OFFSET;
import static io.verbs4j.collectives.rendezvous.TcpStoreProtocol.STATUS_OFFSET;
import static io.verbs4j.collectives.rendezvous.TcpStoreProtocol.STATUS_OK;
import static io.verbs4j.collectives.rendezvous.TcpStoreProtocol.VERSION;
import static io.verbs4j.collectives.rendezvous.TcpStoreProtocol.VERSION_OFFSET;
import static io.verbs4j.collectives.rendezvous.TcpStoreProtocol.encodeRequestHeader;
import static io.verbs4j.collectives.rendezvous.TcpStoreProtocol.encodeResponseHeader;
import static io.verbs4j.collectives.rendezvous.TcpStoreProtocol.newRequestHeader;
import static io.verbs4j.collectives.rendezvous.TcpStoreProtocol.newResponseHeader;
import static io.verbs4j.collectives.rendezvous.TcpStoreProtocol.validateRequestHeader;
import static io.verbs4j.collectives.rendezvous.TcpStoreProtocol.validateResponseHeader;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TcpStoreProtocolTest
{
    @Test
    void shouldLayOutRequestFieldsContiguouslyWithAlignedArgument()
    {
        assertEquals(0, VERSION_OFFSET, "version comes first");
        assertEquals(VERSION_OFFSET + Short.BYTES, OPCODE_OFFSET);
        assertEquals(OPCODE_OFFSET + 1, FLAGS_OFFSET);
        assertEquals(FLAGS_OFFSET + 1, KEY_LENGTH_OFFSET);
        assertEquals(KEY_LENGTH_OFFSET + Integer.BYTES, REQUEST_VALUE_LENGTH_OFFSET);
        assertEquals(REQUEST_VALUE_LENGTH_OFFSET + Integer.BYTES, RESERVED_OFFSET);
        assertEquals(RESERVED_OFFSET + Integer.BYTES, REQUEST_ARGUMENT_OFFSET);
        assertEquals(0, REQUEST_ARGUMENT_OFFSET % Long.BYTES);
        assertEquals(REQUEST_ARGUMENT_OFFSET + Long.BYTES, REQUEST_HEADER_LENGTH);
    }

    @Test
    void shouldLayOutResponseFieldsContiguouslyWithAlignedArgument()
    {
        assertEquals(VERSION_OFFSET + Short.BYTES, STATUS_OFFSET);
        assertEquals(STATUS_OFFSET + 1, FLAGS_OFFSET);
        assertEquals(FLAGS_OFFSET + 1, RESPONSE_VALUE_LENGTH_OFFSET);
        assertEquals(RESPONSE_VALUE_LENGTH_OFFSET + Integer.BYTES, RESPONSE_ARGUMENT_OFFSET);
        assertEquals(0, RESPONSE_ARGUMENT_OFFSET % Long.BYTES);
        assertEquals(RESPONSE_ARGUMENT_OFFSET + Long.BYTES, RESPONSE_HEADER_LENGTH);
    }

    @Test
    void shouldEncodeBigEndianAndAcceptValidHeaders()
    {
        final ByteBuffer header = newRequestHeader();
        encodeRequestHeader(header, OP_SET, 3, 5, 0x0102030405060708L);
        final byte[] raw = header.array();
        assertEquals(0, raw[0]);
        assertEquals(VERSION, raw[1]);
        assertEquals(OP_SET, raw[2]);
        assertEquals(3, raw[7]);
        assertEquals(5, raw[11]);
        assertEquals(1, raw[16]);
        assertEquals(8, raw[23]);
        assertNull(validateRequestHeader(header));

        final ByteBuffer response = newResponseHeader();
        encodeResponseHeader(response, STATUS_OK, 7, 42);
        assertNull(validateResponseHeader(response));
        assertEquals(7, response.getInt(RESPONSE_VALUE_LENGTH_OFFSET));
    }

    @Test
    void shouldRejectEveryKindOfMalformedRequestHeader()
    {
        assertProblem(h -> h.putShort(VERSION_OFFSET, (short)2), "version");
        assertProblem(h -> h.put(OPCODE_OFFSET, (byte)99), "opcode");
        assertProblem(h -> h.put(OPCODE_OFFSET, (byte)0), "opcode");
        assertProblem(h -> h.put(FLAGS_OFFSET, (byte)1), "flags");
        assertProblem(h -> h.putInt(RESERVED_OFFSET, 1), "reserved");
        assertProblem(h -> h.putInt(KEY_LENGTH_OFFSET, 0), "key length");
        assertProblem(h -> h.putInt(KEY_LENGTH_OFFSET, -5), "key length");
        assertProblem(h -> h.putInt(KEY_LENGTH_OFFSET, RendezvousStore.MAX_KEY_LENGTH + 1), "key length");
        assertProblem(h -> h.putInt(REQUEST_VALUE_LENGTH_OFFSET, MAX_VALUE_LENGTH + 1), "value length");
        assertProblem(h -> h.putInt(REQUEST_VALUE_LENGTH_OFFSET, -1), "value length");
        assertProblem(h -> h.put(OPCODE_OFFSET, OP_GET).putInt(REQUEST_VALUE_LENGTH_OFFSET, 0)
            .putLong(REQUEST_ARGUMENT_OFFSET, 0), "wait");
        assertProblem(h -> h.put(OPCODE_OFFSET, OP_ADD).putInt(REQUEST_VALUE_LENGTH_OFFSET, 1), "value length");
    }

    private static void assertProblem(final java.util.function.Consumer<ByteBuffer> corrupt, final String expected)
    {
        final ByteBuffer header = newRequestHeader();
        encodeRequestHeader(header, OP_SET, 3, 5, 1000);
        corrupt.accept(header);
        final String problem = validateRequestHeader(header);
        assertNotNull(problem, "expected a problem about " + expected);
        assertTrue(problem.contains(expected), problem);
    }
}

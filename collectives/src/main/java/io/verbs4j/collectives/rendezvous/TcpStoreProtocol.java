// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.rendezvous;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Descriptor of the TcpStore wire protocol: frame layouts, opcodes, status codes and limits. All integers are
 * big-endian (network order). A connection carries one request at a time; each request gets one response.
 *
 * <p>Request frame ({@value #REQUEST_HEADER_LENGTH}-byte header, then key, then value):
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-------------------------------+---------------+---------------+
 *  |           Version             |    Opcode     |   Flags (0)   |  0
 *  +-------------------------------+---------------+---------------+
 *  |                          Key Length                           |  4
 *  +---------------------------------------------------------------+
 *  |                         Value Length                          |  8
 *  +---------------------------------------------------------------+
 *  |                         Reserved (0)                          | 12
 *  +---------------------------------------------------------------+
 *  |                      Argument (64 bits):                      | 16
 *  |          delta for ADD, timeout in ms for GET and WAIT        |
 *  +---------------------------------------------------------------+
 *  |                 Key: Key Length bytes of UTF-8               ...  24
 *  +---------------------------------------------------------------+
 *  |             Value: Value Length bytes (SET only)             ...
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>Response frame ({@value #RESPONSE_HEADER_LENGTH}-byte header, then value):
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-------------------------------+---------------+---------------+
 *  |           Version             |    Status     |   Flags (0)   |  0
 *  +-------------------------------+---------------+---------------+
 *  |                         Value Length                          |  4
 *  +---------------------------------------------------------------+
 *  |                      Argument (64 bits):                      |  8
 *  |    counter after ADD, 1/0 for CHECK and DELETE, else 0        |
 *  +---------------------------------------------------------------+
 *  |  Value: GET's value, or a UTF-8 message when BAD_REQUEST     ...  16
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>Authentication. When a cluster secret is configured ({@code io.verbs4j.config.ClusterSecret}), the client's
 * first two requests are {@link #OP_AUTH_HELLO} (value: its nonce) and {@link #OP_AUTH_RESPONSE} (value: its proof),
 * both with an empty key and a zero argument; the server answers the first with its nonce and proof (64 bytes),
 * the second with an empty OK. This is the mutual challenge-response of {@code io.verbs4j.spi.ChallengeResponse}
 * with context {@value #AUTH_CONTEXT}. A server with a secret answers any other first request, a wrong proof, or
 * (without a secret) an {@link #OP_AUTH_HELLO} with {@link #STATUS_AUTH_FAILED} and a UTF-8 reason, then closes;
 * a client that finds the server's proof wrong closes without sending its own.
 *
 * <p>A server that receives a header with the wrong version, non-zero flags or reserved bits, an unknown opcode,
 * or a length outside the limits closes that connection (and logs why) without answering; other connections are
 * unaffected.
 */
public final class TcpStoreProtocol
{
    /** Protocol version carried first in every frame. */
    public static final short VERSION = 1;

    /** Offset of the version in both frames. */
    public static final int VERSION_OFFSET = 0;
    /** Offset of the opcode in a request. */
    public static final int OPCODE_OFFSET = 2;
    /** Offset of the flags in both frames. */
    public static final int FLAGS_OFFSET = 3;
    /** Offset of the key length in a request. */
    public static final int KEY_LENGTH_OFFSET = 4;
    /** Offset of the value length in a request. */
    public static final int REQUEST_VALUE_LENGTH_OFFSET = 8;
    /** Offset of the reserved word in a request. */
    public static final int RESERVED_OFFSET = 12;
    /** Offset of the 64-bit argument in a request. */
    public static final int REQUEST_ARGUMENT_OFFSET = 16;
    /** Length of the request header; the key follows. */
    public static final int REQUEST_HEADER_LENGTH = 24;

    /** Offset of the status in a response. */
    public static final int STATUS_OFFSET = 2;
    /** Offset of the value length in a response. */
    public static final int RESPONSE_VALUE_LENGTH_OFFSET = 4;
    /** Offset of the 64-bit argument in a response. */
    public static final int RESPONSE_ARGUMENT_OFFSET = 8;
    /** Length of the response header; the value follows. */
    public static final int RESPONSE_HEADER_LENGTH = 16;

    /** Store a value. */
    public static final byte OP_SET = 1;
    /** Fetch a value, waiting up to the argument in ms. */
    public static final byte OP_GET = 2;
    /** Add the argument to a counter. */
    public static final byte OP_ADD = 3;
    /** Whether a key is present (argument 1 or 0 in the response). */
    public static final byte OP_CHECK = 4;
    /** Remove a key (argument 1 if it was present). */
    public static final byte OP_DELETE = 5;
    /** Wait up to the argument in ms for a key, returning no value. */
    public static final byte OP_WAIT = 6;

    /** Authentication, first request: value = the client's nonce. Answered with the server's nonce and proof. */
    public static final byte OP_AUTH_HELLO = 7;
    /** Authentication, second request: value = the client's proof. Answered with an empty OK. */
    public static final byte OP_AUTH_RESPONSE = 8;

    /** The request succeeded. */
    public static final byte STATUS_OK = 0;
    /** GET or WAIT gave up after its timeout. */
    public static final byte STATUS_TIMEOUT = 1;
    /** Well-formed but refused (for example ADD on a non-counter); the value holds the reason. */
    public static final byte STATUS_BAD_REQUEST = 2;

    /** Refused by authentication; the value holds the reason and the server closes the connection. */
    public static final byte STATUS_AUTH_FAILED = 3;

    /** Context of the store's challenge-response proofs. */
    public static final String AUTH_CONTEXT = "verbs4j-store-v1";
    /** Value length of {@link #OP_AUTH_HELLO} and {@link #OP_AUTH_RESPONSE} (a nonce, a proof). */
    public static final int AUTH_VALUE_LENGTH = 32;
    /** Value length of the server's answer to {@link #OP_AUTH_HELLO} (its nonce, then its proof). */
    public static final int AUTH_CHALLENGE_LENGTH = 64;

    /** Largest value the server accepts, 16 MiB: rendezvous values are addresses, not data. */
    public static final int MAX_VALUE_LENGTH = 16 * 1024 * 1024;
    /** Largest wait argument accepted, one day in ms. */
    public static final long MAX_WAIT_MS = 86_400_000L;

    private TcpStoreProtocol()
    {
    }

    /**
     * Allocates a buffer for a request header in the protocol's byte order.
     *
     * @return a new {@value #REQUEST_HEADER_LENGTH}-byte big-endian buffer.
     */
    public static ByteBuffer newRequestHeader()
    {
        return ByteBuffer.allocate(REQUEST_HEADER_LENGTH).order(ByteOrder.BIG_ENDIAN);
    }

    /**
     * Writes a request header.
     *
     * @param header      buffer of at least {@value #REQUEST_HEADER_LENGTH} bytes.
     * @param opcode      one of the {@code OP_*} constants.
     * @param keyLength   UTF-8 length of the key.
     * @param valueLength length of the value (0 unless SET).
     * @param argument    the opcode's argument.
     */
    public static void encodeRequestHeader(
        final ByteBuffer header, final byte opcode, final int keyLength, final int valueLength, final long argument)
    {
        header.putShort(VERSION_OFFSET, VERSION)
            .put(OPCODE_OFFSET, opcode)
            .put(FLAGS_OFFSET, (byte)0)
            .putInt(KEY_LENGTH_OFFSET, keyLength)
            .putInt(REQUEST_VALUE_LENGTH_OFFSET, valueLength)
            .putInt(RESERVED_OFFSET, 0)
            .putLong(REQUEST_ARGUMENT_OFFSET, argument);
    }

    /**
     * Checks a received request header against the protocol.
     *
     * @param header the {@value #REQUEST_HEADER_LENGTH} header bytes.
     * @return null if acceptable, else a description of what is wrong (for the log line).
     */
    public static String validateRequestHeader(final ByteBuffer header)
    {
        final short version = header.getShort(VERSION_OFFSET);
        if (VERSION != version)
        {
            return "unsupported protocol version " + version + " (this server speaks " + VERSION + ")";
        }
        final byte opcode = header.get(OPCODE_OFFSET);
        if (opcode < OP_SET || opcode > OP_AUTH_RESPONSE)
        {
            return "unknown opcode " + opcode;
        }
        if (0 != header.get(FLAGS_OFFSET) || 0 != header.getInt(RESERVED_OFFSET))
        {
            return "non-zero flags or reserved bits";
        }
        if (isAuthentication(opcode))
        {
            return 0 == header.getInt(KEY_LENGTH_OFFSET) &&
                AUTH_VALUE_LENGTH == header.getInt(REQUEST_VALUE_LENGTH_OFFSET) &&
                0 == header.getLong(REQUEST_ARGUMENT_OFFSET) ? null :
                "authentication request " + opcode + " with a key, an argument or a value other than " +
                AUTH_VALUE_LENGTH + " bytes";
        }
        final int keyLength = header.getInt(KEY_LENGTH_OFFSET);
        if (keyLength < 1 || keyLength > RendezvousStore.MAX_KEY_LENGTH)
        {
            return "impossible key length " + keyLength + " (allowed 1.." + RendezvousStore.MAX_KEY_LENGTH + ")";
        }
        final int valueLength = header.getInt(REQUEST_VALUE_LENGTH_OFFSET);
        final int maxValueLength = OP_SET == opcode ? MAX_VALUE_LENGTH : 0;
        if (valueLength < 0 || valueLength > maxValueLength)
        {
            return "impossible value length " + valueLength + " for opcode " + opcode +
                " (allowed 0.." + maxValueLength + ")";
        }
        final long argument = header.getLong(REQUEST_ARGUMENT_OFFSET);
        if ((OP_GET == opcode || OP_WAIT == opcode) && (argument < 1 || argument > MAX_WAIT_MS))
        {
            return "impossible wait of " + argument + " ms (allowed 1.." + MAX_WAIT_MS + ")";
        }
        return null;
    }

    /**
     * @param opcode a request opcode.
     * @return true for {@link #OP_AUTH_HELLO} and {@link #OP_AUTH_RESPONSE}.
     */
    public static boolean isAuthentication(final byte opcode)
    {
        return OP_AUTH_HELLO == opcode || OP_AUTH_RESPONSE == opcode;
    }

    /**
     * Allocates a buffer for a response header in the protocol's byte order.
     *
     * @return a new {@value #RESPONSE_HEADER_LENGTH}-byte big-endian buffer.
     */
    public static ByteBuffer newResponseHeader()
    {
        return ByteBuffer.allocate(RESPONSE_HEADER_LENGTH).order(ByteOrder.BIG_ENDIAN);
    }

    /**
     * Writes a response header.
     *
     * @param header      buffer of at least {@value #RESPONSE_HEADER_LENGTH} bytes.
     * @param status      one of the {@code STATUS_*} constants.
     * @param valueLength length of the value that follows.
     * @param argument    the response argument.
     */
    public static void encodeResponseHeader(
        final ByteBuffer header, final byte status, final int valueLength, final long argument)
    {
        header.putShort(VERSION_OFFSET, VERSION)
            .put(STATUS_OFFSET, status)
            .put(FLAGS_OFFSET, (byte)0)
            .putInt(RESPONSE_VALUE_LENGTH_OFFSET, valueLength)
            .putLong(RESPONSE_ARGUMENT_OFFSET, argument);
    }

    /**
     * Checks a received response header (the client's side of the same rules).
     *
     * @param header the {@value #RESPONSE_HEADER_LENGTH} header bytes.
     * @return null if acceptable, else a description of what is wrong.
     */
    public static String validateResponseHeader(final ByteBuffer header)
    {
        final short version = header.getShort(VERSION_OFFSET);
        if (VERSION != version)
        {
            return "unsupported protocol version " + version + " in response (this client speaks " + VERSION + ")";
        }
        final byte status = header.get(STATUS_OFFSET);
        if (status < STATUS_OK || status > STATUS_AUTH_FAILED)
        {
            return "unknown status " + status;
        }
        final int valueLength = header.getInt(RESPONSE_VALUE_LENGTH_OFFSET);
        if (valueLength < 0 || valueLength > MAX_VALUE_LENGTH)
        {
            return "impossible value length " + valueLength + " in response";
        }
        return null;
    }
}

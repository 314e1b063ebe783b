// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp.protocol;

/**
 * Frame types of the verbs4j TCP wire protocol. They mirror the RDMA RC packet opcodes (and SoftiWARP's DDP/RDMAP
 * messages): requests that an initiator sends, responses that the target sends back, and control frames.
 * <pre>
 *   initiator                                   target
 *   SEND / WRITE / WRITE_WITH_IMM  --------->   (consumes a RECV for SEND and WRITE_WITH_IMM)
 *                                  &lt;---------   ACK (cumulative) | NAK(status) | RNR_NAK
 *   READ_REQUEST                   --------->   key -&gt; access -&gt; bounds check
 *                                  &lt;---------   READ_RESPONSE (payload) | NAK(REM_ACCESS_ERR)
 *   ATOMIC_REQUEST                 --------->   key -&gt; access -&gt; bounds -&gt; CAS / fetch-add
 *                                  &lt;---------   ATOMIC_RESPONSE (original value) | NAK
 *   HEARTBEAT, DISCONNECT          &lt;--------&gt;   either direction
 *   CONNECT_REQUEST                --------->   handshake, private data
 *                                  &lt;---------   CONNECT_ACCEPT | CONNECT_REJECT
 * </pre>
 * With a cluster secret the connector authenticates first (see {@code io.verbs4j.spi.ChallengeResponse}):
 * <pre>
 *   AUTH_HELLO (nonce Nc)          --------->
 *                                  &lt;---------   AUTH_CHALLENGE (nonce Na, acceptor's proof) | CONNECT_REJECT
 *   AUTH_RESPONSE (connector's proof), CONNECT_REQUEST --------->   (CONNECT_REJECT instead if Na's proof fails)
 * </pre>
 */
public final class FrameType
{
    /** Two-sided send ({@link FrameFlyweight#FLAG_IMMEDIATE} for SEND_WITH_IMM); payload = message. */
    public static final byte SEND = 1;
    /** RDMA WRITE; payload = data for [address, address + length) of the rkey's region. */
    public static final byte WRITE = 2;
    /** RDMA WRITE with immediate: also consumes a receive at the target. */
    public static final byte WRITE_WITH_IMM = 3;
    /** RDMA READ request: no payload, the argument word is the length to read. */
    public static final byte READ_REQUEST = 4;
    /** RDMA READ response: payload = the bytes read. */
    public static final byte READ_RESPONSE = 5;
    /** Atomic request: payload = {@link FrameFlyweight#ATOMIC_OPERANDS_LENGTH} bytes of operands. */
    public static final byte ATOMIC_REQUEST = 6;
    /** Atomic response: the address field carries the original 64-bit value. */
    public static final byte ATOMIC_RESPONSE = 7;
    /** Cumulative acknowledgement: every request up to and including the sequence completed. */
    public static final byte ACK = 8;
    /** Negative acknowledgement of the request at the sequence; the argument word is the WcStatus. */
    public static final byte NAK = 9;
    /** Receiver not ready for the request at the sequence: the initiator retries it (and what follows) later. */
    public static final byte RNR_NAK = 10;
    /** Orderly disconnect: the sender's queue pair went to ERROR or was closed. */
    public static final byte DISCONNECT = 11;
    /** Keep-alive, sent when a direction has been idle for a heartbeat interval. */
    public static final byte HEARTBEAT = 12;
    /** Handshake from the connector (see {@link HandshakeFlyweight}); payload = private data. */
    public static final byte CONNECT_REQUEST = 13;
    /** Handshake answer: accepted; payload = private data. */
    public static final byte CONNECT_ACCEPT = 14;
    /** Handshake answer: rejected; payload = UTF-8 reason. */
    public static final byte CONNECT_REJECT = 15;

    /** Authentication, connector first: payload = the connector's nonce. */
    public static final byte AUTH_HELLO = 16;
    /** Authentication, acceptor's answer: payload = the acceptor's nonce, then its proof. */
    public static final byte AUTH_CHALLENGE = 17;
    /** Authentication, connector's proof: payload = the proof; CONNECT_REQUEST follows. */
    public static final byte AUTH_RESPONSE = 18;

    /** Highest type value in use. */
    public static final byte MAX_TYPE = AUTH_RESPONSE;

    private static final long REQUESTS =
        1L << SEND | 1L << WRITE | 1L << WRITE_WITH_IMM | 1L << READ_REQUEST | 1L << ATOMIC_REQUEST;
    private static final long RESPONSES =
        1L << READ_RESPONSE | 1L << ATOMIC_RESPONSE | 1L << ACK | 1L << NAK | 1L << RNR_NAK;

    private static final String[] NAMES =
    {
        "UNKNOWN(0)", "SEND", "WRITE", "WRITE_WITH_IMM", "READ_REQUEST", "READ_RESPONSE", "ATOMIC_REQUEST",
        "ATOMIC_RESPONSE", "ACK", "NAK", "RNR_NAK", "DISCONNECT", "HEARTBEAT", "CONNECT_REQUEST", "CONNECT_ACCEPT",
        "CONNECT_REJECT", "AUTH_HELLO", "AUTH_CHALLENGE", "AUTH_RESPONSE"
    };

    private FrameType()
    {
    }

    /**
     * @param type a type byte.
     * @return true if it is a known type.
     */
    public static boolean isValid(final int type)
    {
        return type >= SEND && type <= MAX_TYPE;
    }

    /**
     * @param type a type byte.
     * @return true for a handshake frame (connection or authentication).
     */
    public static boolean isHandshake(final int type)
    {
        return type >= CONNECT_REQUEST && type <= AUTH_RESPONSE;
    }

    /**
     * @param type a type byte.
     * @return true for a request an initiator sends and a target carries out (SEND, WRITE, WRITE_WITH_IMM,
     * READ_REQUEST, ATOMIC_REQUEST).
     */
    public static boolean isRequest(final int type)
    {
        return inClass(REQUESTS, type);
    }

    /**
     * @param type a type byte.
     * @return true for a target's answer to requests (READ_RESPONSE, ATOMIC_RESPONSE, ACK, NAK, RNR_NAK).
     */
    public static boolean isResponse(final int type)
    {
        return inClass(RESPONSES, type);
    }

    /** One bit test per frame instead of a chain of comparisons: the router asks for every frame's header and end. */
    private static boolean inClass(final long types, final int type)
    {
        return 0 == (type & ~63) && 0 != ((types >>> type) & 1);
    }

    /**
     * @param type a type byte.
     * @return true for an authentication frame.
     */
    public static boolean isAuthentication(final int type)
    {
        return type >= AUTH_HELLO && type <= AUTH_RESPONSE;
    }

    /**
     * @param type a type byte.
     * @return its name.
     */
    public static String name(final int type)
    {
        return isValid(type) ? NAMES[type] : "UNKNOWN(" + type + ")";
    }
}

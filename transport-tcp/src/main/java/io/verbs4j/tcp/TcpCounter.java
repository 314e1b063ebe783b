// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import io.verbs4j.stat.CounterType;

/**
 * The counters every tcp device keeps (read them with {@link TcpDevice#counter(TcpCounter)}).
 */
public enum TcpCounter implements CounterType
{
    /** Payload bytes written to sockets (SEND, WRITE, READ_RESPONSE and atomic operands). */
    BYTES_SENT(0, "payload bytes sent"),
    /** Payload bytes read from sockets. */
    BYTES_RECEIVED(1, "payload bytes received"),
    /**
     * Payload bytes copied in user space on the sending side: only inline payloads, which are copied into the frame
     * buffer; every other payload goes to the socket straight from registered memory.
     */
    BYTES_COPIED_ON_SEND(2, "payload bytes copied on send"),
    /**
     * Payload bytes copied in user space on the receiving side, from Netty's receive buffer into the destination
     * region or posted receive buffer (one copy per byte received and placed).
     */
    BYTES_COPIED_ON_RECEIVE(3, "payload bytes copied on receive"),
    /** Payload bytes read and thrown away (dropped while RNR-retrying or after a NAK). */
    BYTES_DISCARDED(4, "payload bytes discarded"),
    /** Frames written. */
    FRAMES_SENT(5, "frames sent"),
    /** Frames read. */
    FRAMES_RECEIVED(6, "frames received"),
    /** NAKs sent (remote access, invalid request). */
    NAKS_SENT(7, "NAKs sent"),
    /** RNR NAKs sent (a SEND or WRITE_WITH_IMM found no posted receive). */
    RNR_NAKS_SENT(8, "RNR NAKs sent"),
    /** Requests retransmitted after an RNR NAK. */
    RNR_RETRIES(9, "RNR retries"),
    /** Times an initiator stopped sending because of the in-flight cap or an unwritable socket. */
    BACK_PRESSURE_EVENTS(10, "back-pressure events"),
    /** Connections closed because the peer broke the protocol. */
    PROTOCOL_ERRORS(11, "protocol errors"),
    /** Connections declared dead because the peer went silent for the peer timeout. */
    PEER_TIMEOUTS(12, "peer timeouts"),
    /** Connections lost without an orderly disconnect. */
    CONNECTIONS_LOST(13, "connections lost"),
    /** Connections established. */
    CONNECTIONS_ESTABLISHED(14, "connections established"),
    /** Frames a posting thread wrote straight to the socket (the fast path, without waking an I/O thread). */
    FRAMES_SENT_DIRECT(15, "frames sent by posting threads"),
    /** Payload bytes read from the socket straight into their destination (no user-space copy). */
    BYTES_RECEIVED_DIRECT(16, "payload bytes read straight into the destination"),
    /** Hand-overs of a send to an I/O thread by a wake-up task (the slow path of a post). */
    PUMP_WAKEUPS(17, "I/O thread wake-ups for posts"),
    /**
     * Connections refused at admission: the peer failed to prove the cluster secret, spoke without it when this side
     * requires it (or with it when this side has none), failed the TLS handshake, or refused this side's proof.
     * Each refusal is also logged at WARNING with the remote address and the reason.
     */
    AUTH_FAILURES(18, "connections refused by authentication"),
    /** Peers that proved the cluster secret (counted on both sides; stays 0 without a secret). */
    PEERS_AUTHENTICATED(19, "peers authenticated"),
    /**
     * Frames read and decoded by a thread polling a completion queue ({@link TcpConfiguration#POLLER_READS_PROP_NAME},
     * polling mode) rather than by an I/O thread: their completions reached the polling thread with no wake-up. The
     * I/O threads read the other {@link #FRAMES_RECEIVED}.
     */
    FRAMES_RECEIVED_BY_POLLERS(20, "frames read by polling threads"),
    /**
     * Bulk read batches of an I/O thread that no polling thread could have read (none had looked since the last
     * one), after which the I/O thread kept polling instead of sleeping
     * ({@link TcpConfiguration#IO_READ_SPIN_PROP_NAME}).
     */
    IO_READ_SPINS(21, "bulk read batches an I/O thread stayed awake after"),
    /**
     * ACK frames written on their own rather than in a batch of this side's requests: each costs a write here and a
     * read at the peer. ACKs that ride along with requests are not counted ({@code TcpAckHold} says when an ACK waits
     * for one).
     */
    ACKS_SENT_ALONE(22, "ACKs written on their own");

    private final int id;
    private final String label;

    TcpCounter(final int id, final String label)
    {
        this.id = id;
        this.label = label;
    }

    /** @return the counter's index. */
    @Override
    public int id()
    {
        return id;
    }

    /** @return a human-readable label. */
    @Override
    public String label()
    {
        return label;
    }
}

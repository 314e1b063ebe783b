// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm.protocol;

import io.verbs4j.shm.ShmConfiguration;
import org.agrona.BitUtil;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/**
 * A connection's segment ({@code <prefix>p<pid>-d<deviceId>-c<connectionId>.conn}), created by the connecting
 * side (side 0) and mapped by the accepting side (side 1); the connector deletes the file as soon as the accept is
 * seen, so after the handshake only the two mappings remain and nothing is left on disk when either side crashes.
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                SegmentHeader (magic V4JC, connector)          |    0
 *  +---------------------------------------------------------------+
 *  |                      Ring capacity                            |   40
 *  +---------------------------------------------------------------+
 *  |  Handshake state: PENDING / ACCEPTED / REJECTED / ABANDONED   |   44  (CAS by either side)
 *  +---------------------------------------------------------------+
 *  |                     Connector QP number                       |   48
 *  +---------------------------------------------------------------+
 *  |                      Acceptor QP number                       |   52
 *  +---------------------------------------------------------------+
 *  |                  Acceptor PID (64 bits)                       |   56
 *  +---------------------------------------------------------------+
 *  |                Acceptor device id (64 bits)                   |   64
 *  +---------------------------------------------------------------+
 *  |              Acceptor QP's PD id (64 bits)                    |   72
 *  +---------------------------------------------------------------+
 *  |              Connector QP's PD id (64 bits)                   |   80
 *  +---------------------------------------------------------------+
 *  |            Response private data / reason length              |   88
 *  +---------------------------------------------------------------+
 *  |                          ...                                  |
 *  +---------------------------------------------------------------+
 *  |   Control block of side 0 (written only by side 0, 128 B)     |  128
 *  +---------------------------------------------------------------+
 *  |   Control block of side 1 (written only by side 1, 128 B)     |  256
 *  +---------------------------------------------------------------+
 *  |   Response private data (up to 4096 B)                        |  384
 *  +---------------------------------------------------------------+
 *  |   Ring 0 -> 1: Agrona OneToOneRingBuffer (capacity + trailer) | 4608
 *  +---------------------------------------------------------------+
 *  |   Ring 1 -> 0: Agrona OneToOneRingBuffer (capacity + trailer) |
 *  +---------------------------------------------------------------+
 *  |   Staging area of side 0 (ring capacity bytes)                |
 *  +---------------------------------------------------------------+
 *  |   Staging area of side 1 (ring capacity bytes)                |
 *  +---------------------------------------------------------------+
 * </pre>
 * A side's staging area receives the answers to the served READ and atomic requests it sends (one at a time): the
 * peer writes them, then acknowledges the request's MSN. Pages are only touched when used.
 * Control block of a side (its state, and acknowledgements for the messages it received), two cache lines: the
 * first changes only on a NAK, an error or a close, and the peer reads it on every idle look; the second is written
 * in every receive round, and a peer whose acknowledgements come on the records it reads does not keep a copy of it
 * (see {@code ShmAckWatch}), so those stores never wait for the peer's core:
 * <pre>
 *  +---------------------------------------------------------------+
 *  |  Reserved (0)                                                 | +0
 *  +---------------------------------------------------------------+
 *  |  RNR NAK count (64 bits, bumped after RNR NAK MSN is written) | +8
 *  +---------------------------------------------------------------+
 *  |  RNR NAK MSN: message refused for lack of a receive (64 bits) | +16
 *  +---------------------------------------------------------------+
 *  |  Error MSN + 1: message refused with the status below         | +24
 *  +---------------------------------------------------------------+
 *  |  Error status (a WcStatus for the sender, e.g. REM_INV_REQ_ERR)| +32
 *  +---------------------------------------------------------------+
 *  |  Closed: the side's QP went to ERROR or closed                | +36
 *  +---------------------------------------------------------------+
 *  |  Acked MSN: messages received and completed (64 bits)         | +64
 *  +---------------------------------------------------------------+
 * </pre>
 * Acknowledgements travel as these counters, not as ring records, so that two rings full of SENDs can never
 * deadlock waiting for room for each other's acks.
 */
public final class ConnectionSegmentDescriptor
{
    /** Handshake: waiting for the acceptor. */
    public static final int PENDING = 0;
    /** Handshake: accepted; the acceptor's fields are valid. */
    public static final int ACCEPTED = 1;
    /** Handshake: rejected; the response area holds the reason in UTF-8. */
    public static final int REJECTED = 2;
    /** Handshake: the connector gave up (timeout); an accept must fail. */
    public static final int ABANDONED = 3;

    /** Offset of the ring capacity. */
    public static final int RING_CAPACITY_OFFSET = SegmentHeader.LENGTH;
    /** Offset of the handshake state. */
    public static final int STATE_OFFSET = RING_CAPACITY_OFFSET + 4;
    /** Offset of the connector's QP number. */
    public static final int CONNECTOR_QPN_OFFSET = STATE_OFFSET + 4;
    /** Offset of the acceptor's QP number. */
    public static final int ACCEPTOR_QPN_OFFSET = CONNECTOR_QPN_OFFSET + 4;
    /** Offset of the acceptor's process id. */
    public static final int ACCEPTOR_PID_OFFSET = ACCEPTOR_QPN_OFFSET + 4;
    /** Offset of the acceptor's device id. */
    public static final int ACCEPTOR_DEVICE_ID_OFFSET = ACCEPTOR_PID_OFFSET + 8;
    /** Offset of the acceptor QP's protection-domain id. */
    public static final int ACCEPTOR_PD_ID_OFFSET = ACCEPTOR_DEVICE_ID_OFFSET + 8;
    /** Offset of the connector QP's protection-domain id. */
    public static final int CONNECTOR_PD_ID_OFFSET = ACCEPTOR_PD_ID_OFFSET + 8;
    /** Offset of the response private data length. */
    public static final int RESPONSE_LENGTH_OFFSET = CONNECTOR_PD_ID_OFFSET + 8;
    /** Offset of side 0's control block. */
    public static final int CONTROL_0_OFFSET = 2 * BitUtil.CACHE_LINE_LENGTH;
    /** Offset of side 1's control block. */
    public static final int CONTROL_1_OFFSET = 4 * BitUtil.CACHE_LINE_LENGTH;
    /** Length of a control block. */
    public static final int CONTROL_LENGTH = 2 * BitUtil.CACHE_LINE_LENGTH;
    /** Offset of the response private data. */
    public static final int RESPONSE_OFFSET = 6 * BitUtil.CACHE_LINE_LENGTH;
    /** Offset of the first ring. */
    public static final int RINGS_OFFSET = RESPONSE_OFFSET + ShmConfiguration.MAX_PRIVATE_DATA_LENGTH + 128;

    /** In a control block: acked MSN (on the block's second cache line). */
    public static final int ACKED_MSN_OFFSET = BitUtil.CACHE_LINE_LENGTH;
    /** In a control block: RNR NAK count. */
    public static final int RNR_COUNT_OFFSET = 8;
    /** In a control block: RNR NAK MSN. */
    public static final int RNR_MSN_OFFSET = 16;
    /** In a control block: error MSN plus one (0 = none). */
    public static final int ERROR_MSN_OFFSET = 24;
    /** In a control block: error status. */
    public static final int ERROR_STATUS_OFFSET = 32;
    /** In a control block: closed flag. */
    public static final int CLOSED_OFFSET = 36;

    private ConnectionSegmentDescriptor()
    {
    }

    /**
     * @param side 0 (connector) or 1 (acceptor).
     * @return offset of that side's control block.
     */
    public static int controlOffset(final int side)
    {
        return 0 == side ? CONTROL_0_OFFSET : CONTROL_1_OFFSET;
    }

    /**
     * @param ringCapacity capacity of each ring.
     * @return length of one ring including its trailer.
     */
    public static int ringLength(final int ringCapacity)
    {
        return ringCapacity + RingBufferDescriptor.TRAILER_LENGTH;
    }

    /**
     * @param ringCapacity capacity of each ring.
     * @param fromSide     the side that writes the ring.
     * @return offset of the ring that {@code fromSide} writes.
     */
    public static int ringOffset(final int ringCapacity, final int fromSide)
    {
        return RINGS_OFFSET + fromSide * ringLength(ringCapacity);
    }

    /**
     * @param ringCapacity capacity of each ring.
     * @return length of each side's staging area.
     */
    public static int stagingLength(final int ringCapacity)
    {
        return ringCapacity;
    }

    /**
     * @param ringCapacity capacity of each ring.
     * @param side         the side whose requests are answered there.
     * @return offset of that side's staging area.
     */
    public static int stagingOffset(final int ringCapacity, final int side)
    {
        return RINGS_OFFSET + 2 * ringLength(ringCapacity) + side * stagingLength(ringCapacity);
    }

    /**
     * @param ringCapacity capacity of each ring.
     * @return the segment length.
     */
    public static int length(final int ringCapacity)
    {
        return RINGS_OFFSET + 2 * ringLength(ringCapacity) + 2 * stagingLength(ringCapacity);
    }
}

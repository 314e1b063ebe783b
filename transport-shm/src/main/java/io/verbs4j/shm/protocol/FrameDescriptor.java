// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm.protocol;

/**
 * A data-ring record (inside Agrona's record header, whose type field carries {@code TYPE_*}). Operations that
 * consume a receive at the peer travel on the ring; WRITE, READ and atomics on the peer's shared (allocated) regions
 * are done by the initiator on its mapping and leave no record. One-sided operations on a peer's registered
 * (unshareable) buffer travel as <em>served requests</em> that the peer's progress carries out after its own
 * key, protection domain, access and bounds checks. Every record takes the next message sequence number (MSN), so
 * one acknowledgement counter orders and completes them all.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-------------------------------+-------------------------------+
 *  |           Version             |            Flags              |  0
 *  +-------------------------------+-------------------------------+
 *  |                       Immediate data                          |  4
 *  +---------------------------------------------------------------+
 *  |        Message sequence number, MSN (64 bits)                 |  8
 *  +---------------------------------------------------------------+
 *  |                   Message length (bytes)                      | 16
 *  +---------------------------------------------------------------+
 *  |  Source count (TYPE_SEND_RENDEZVOUS); with FLAG_ACK           | 20
 *  |  (TYPE_SEND_INLINE) the writer's acknowledgement, low 32 bits |
 *  +---------------------------------------------------------------+
 *  |  TYPE_SEND_INLINE: the payload, length bytes                  | 24
 *  |  TYPE_SEND_RENDEZVOUS: count x source (below)                 |
 *  |  TYPE_WRITE_IMM: nothing (the data is already in place)       |
 *  +---------------------------------------------------------------+
 * </pre>
 * Rendezvous source (the sender's SGEs, in the sender's shared regions; the receiver copies from them straight into
 * its posted receive, then acknowledges through the control block):
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                  Sender region rkey                           | +0
 *  +---------------------------------------------------------------+
 *  |                  Reserved                                     | +4
 *  +---------------------------------------------------------------+
 *  |                  Offset in the region (64 bits)               | +8
 *  +---------------------------------------------------------------+
 *  |                  Length (64 bits)                             | +16
 *  +---------------------------------------------------------------+
 * </pre>
 * Records of the types from {@link #TYPE_SEND_FRAGMENT} on have a request block after the common header:
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                 Remote key (served requests)                  | 24
 *  +---------------------------------------------------------------+
 *  |            Opcode (TYPE_ATOMIC_REQUEST), else 0               | 28
 *  +---------------------------------------------------------------+
 *  |  Remote address of this record's bytes (served requests),     | 32
 *  |  or offset of this fragment in the message (SEND fragments)   |
 *  +---------------------------------------------------------------+
 *  |  Compare-add operand (atomics), or remote address of the      | 40
 *  |  whole WRITE (checked once, on its FIRST fragment)            |
 *  +---------------------------------------------------------------+
 *  |                  Swap operand (atomics)                       | 48
 *  +---------------------------------------------------------------+
 *  |  Payload (TYPE_SEND_FRAGMENT, TYPE_WRITE_REQUEST)             | 56
 *  +---------------------------------------------------------------+
 * </pre>
 * The message length field holds the whole SEND's or WRITE's length (fragments), or the bytes to read (READ).
 * <p>
 * An inline SEND carries the writer's acknowledgement of the reader's records ({@link #FLAG_ACK}): the next MSN the
 * writer expects on the reader's ring, cumulative, the value its control block holds or will hold, its low 32 bits in
 * the source count field. The reader widens it to the value nearest above the acknowledgements it has taken (any
 * value carried lies within its send window of them) and checks it as it checks the control block's. A reply then
 * acknowledges the request it answers, and the requester need not read the peer's control block for it.
 * A READ or atomic request is answered in the initiator's staging area of the connection segment
 * ({@link ConnectionSegmentDescriptor#stagingOffset}), read by the initiator once the MSN is acknowledged.
 */
public final class FrameDescriptor
{
    /** Record type: SEND or SEND_WITH_IMM, payload inline. */
    public static final int TYPE_SEND_INLINE = 1;
    /** Record type: SEND or SEND_WITH_IMM, payload to be pulled from the sender's regions. */
    public static final int TYPE_SEND_RENDEZVOUS = 2;
    /** Record type: notification of an RDMA_WRITE_WITH_IMM whose data was written by the initiator. */
    public static final int TYPE_WRITE_IMM = 3;

    /** Record type: one fragment of a SEND too large for one record, from memory peers cannot map. */
    public static final int TYPE_SEND_FRAGMENT = 4;
    /** Record type: served RDMA WRITE into the peer's registered buffer, payload inline (one fragment). */
    public static final int TYPE_WRITE_REQUEST = 5;
    /** Record type: served RDMA READ of up to the staging length from the peer's registered buffer. */
    public static final int TYPE_READ_REQUEST = 6;
    /** Record type: served atomic on the peer's registered buffer. */
    public static final int TYPE_ATOMIC_REQUEST = 7;

    /** Flag: the immediate field is valid. */
    public static final int FLAG_WITH_IMM = 1;
    /** Flag: first record of a fragmented SEND or WRITE. */
    public static final int FLAG_FIRST = 2;
    /** Flag: last record of a fragmented SEND or WRITE. */
    public static final int FLAG_LAST = 4;
    /** Flag (TYPE_SEND_INLINE): the source count field carries the low 32 bits of the writer's acknowledgement. */
    public static final int FLAG_ACK = 8;

    /** Offset of the version. */
    public static final int VERSION_OFFSET = 0;
    /** Offset of the flags. */
    public static final int FLAGS_OFFSET = 2;
    /** Offset of the immediate data. */
    public static final int IMMEDIATE_OFFSET = 4;
    /** Offset of the MSN. */
    public static final int MSN_OFFSET = 8;
    /** Offset of the message length. */
    public static final int MESSAGE_LENGTH_OFFSET = 16;
    /** Offset of the source count. */
    public static final int SOURCE_COUNT_OFFSET = 20;
    /** Offset of the payload or the sources. */
    public static final int PAYLOAD_OFFSET = 24;
    /** Length of the header. */
    public static final int HEADER_LENGTH = PAYLOAD_OFFSET;

    /** Request block: remote key. */
    public static final int REQUEST_RKEY_OFFSET = 24;
    /** Request block: atomic opcode. */
    public static final int REQUEST_OPCODE_OFFSET = 28;
    /** Request block: remote address, or fragment offset. */
    public static final int REQUEST_ADDRESS_OFFSET = 32;
    /** Request block: compare-add operand, or start address of the whole WRITE. */
    public static final int REQUEST_COMPARE_ADD_OFFSET = 40;
    /** Request block: swap operand. */
    public static final int REQUEST_SWAP_OFFSET = 48;
    /** Payload of records with a request block. */
    public static final int REQUEST_PAYLOAD_OFFSET = 56;
    /** Length of the header plus request block. */
    public static final int REQUEST_HEADER_LENGTH = REQUEST_PAYLOAD_OFFSET;

    /** In a source: rkey. */
    public static final int SOURCE_RKEY_OFFSET = 0;
    /** In a source: offset in the region. */
    public static final int SOURCE_OFFSET_OFFSET = 8;
    /** In a source: length. */
    public static final int SOURCE_LENGTH_OFFSET = 16;
    /** Length of a source. */
    public static final int SOURCE_LENGTH = 24;

    private FrameDescriptor()
    {
    }
}

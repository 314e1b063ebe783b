package io.verbs4j.shm.protocol;

/**
 * A data-ring record (inside Agrona's record header, whose type field carries {@code TYPE_*}). Only operations
 * that consume a receive at the peer travel on the ring; WRITE, READ and atomics are done by the initiator on the
 * peer's mapped region and leave no record.
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
 *  |        Source count (TYPE_SEND_RENDEZVOUS), else 0            | 20
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
 */
public final class FrameDescriptor
{
    /** Record type: SEND or SEND_WITH_IMM, payload inline. */
    public static final int TYPE_SEND_INLINE = 1;
    /** Record type: SEND or SEND_WITH_IMM, payload to be pulled from the sender's regions. */
    public static final int TYPE_SEND_RENDEZVOUS = 2;
    /** Record type: notification of an RDMA_WRITE_WITH_IMM whose data was written by the initiator. */
    public static final int TYPE_WRITE_IMM = 3;

    /** Flag: the immediate field is valid. */
    public static final int FLAG_WITH_IMM = 1;

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

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.link;

/**
 * One direction-pair of message channels to one peer, as the algorithms see it: an ordered stream of messages of
 * at most {@link #slotBytes()} bytes each way, with credit-based flow control.
 * <ul>
 *   <li><b>Send</b>: {@link #trySend} writes the bytes into the peer's next free inbox slot (on verbs: one
 *       RDMA_WRITE_WITH_IMM straight from the source region) or returns false when the peer has no free slot, the
 *       send queue is full or the link failed. It never blocks. The source must stay untouched until
 *       {@link #isSendComplete} says so.</li>
 *   <li><b>Receive</b>: messages arrive in order into this side's inbox; {@link #hasMessage()} says whether the oldest
 *       unconsumed one is there; it is read in place at {@link #inbox()} + {@link #messageOffset()} and then
 *       {@link #release()}d, which hands the slot back to the peer as a credit.</li>
 * </ul>
 * Arrivals and completions are noticed by {@link Links#poll()}. Single-threaded (the thread running the operation).
 */
public interface PeerLink
{
    /**
     * {@link #messageLength()} of a leave message, and the length {@link #trySend} takes to send one: the peer closed
     * its communicator, and this message (no payload) is its final barrier's. A rank in any other call reports that
     * the peer left during it.
     */
    int LEAVE = -1;

    /** @return the peer's rank. */
    int peer();

    /** @return largest message in bytes. */
    int slotBytes();

    /**
     * @param source memory to send from (may be null when {@code length} is 0).
     * @param offset byte offset in {@code source}.
     * @param length bytes, at most {@link #slotBytes()}, or {@link #LEAVE} for a leave message.
     * @return true if posted; false for "no credit or queue full now" (poll and retry) or a failed link.
     */
    boolean trySend(MemView source, long offset, int length);

    /** @return sequence number of the last accepted send (-1 before the first). */
    long lastSendSeq();

    /**
     * @param seq a send sequence number returned by {@link #lastSendSeq()} after a send.
     * @return true when that send's source may be overwritten.
     */
    boolean isSendComplete(long seq);

    /** @return true when every accepted send's source may be overwritten. */
    boolean allSendsComplete();

    /** @return true when the oldest unconsumed message has arrived. */
    boolean hasMessage();

    /** @return the inbox memory. */
    MemView inbox();

    /** @return byte offset of the oldest unconsumed message in {@link #inbox()}. */
    long messageOffset();

    /** @return its length, or {@link #LEAVE}. */
    int messageLength();

    /** Consumes the oldest message: its slot goes back to the peer. */
    void release();

    /** @return true once the link failed (its queue pair went to ERROR). */
    boolean isFailed();
}

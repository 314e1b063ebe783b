// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.conformance;

import io.verbs4j.QpState;

/**
 * The passive side of a conformance test: a process (or, for speed, a second device in the test's JVM) that
 * listens, accepts one queue pair at a time, owns regions the test accesses remotely, and reports what it received.
 * Everything is addressed by small ids so that the same calls work over a command pipe to a child JVM.
 */
public interface Peer extends AutoCloseable
{
    /**
     * @param uniqueName a name unique on this host.
     * @return the endpoint the peer listens on.
     */
    String listen(String uniqueName);

    /**
     * @param length   bytes.
     * @param access   access flags.
     * @param otherPd  true to allocate in a second protection domain (not the accepted QP's).
     * @return the region's id, address and rkey.
     */
    RegionInfo allocate(long length, int access, boolean otherPd);

    /**
     * Registers a new direct buffer of the peer ({@code ByteBuffer.allocateDirect}, not provider-allocated memory):
     * where the provider cannot share such a buffer (shm), peers' one-sided operations on it are served by the
     * peer's progress.
     *
     * @param length bytes.
     * @param access access flags.
     * @return the region's id, address and rkey.
     */
    RegionInfo register(int length, int access);

    /**
     * @param regionId region.
     */
    void deregister(int regionId);

    /**
     * @param regionId region.
     * @param offset   offset.
     * @param data     bytes to store locally.
     */
    void write(int regionId, long offset, byte[] data);

    /**
     * @param regionId region.
     * @param offset   offset.
     * @param length   bytes.
     * @return the bytes, read locally.
     */
    byte[] read(int regionId, long offset, int length);

    /**
     * @param regionId region.
     * @param offset   8-byte aligned offset.
     * @return the long, read with volatile semantics.
     */
    long getLongVolatile(int regionId, long offset);

    /**
     * Starts accepting the next connection in the background: the accepted QP is moved to INIT and gets
     * {@code recvCount} receives of {@code recvSize} bytes (wrIds 0, 1, ...) before the accept.
     *
     * @param recvCount  receives to post before accepting.
     * @param recvSize   size of each receive buffer.
     * @param rnrRetry   RNR retry count of the peer's QP.
     * @param replyData  private data to answer with.
     */
    void acceptAsync(int recvCount, int recvSize, int rnrRetry, byte[] replyData);

    /**
     * @param timeoutMs longest wait.
     * @return the connector's private data.
     */
    byte[] awaitAccepted(long timeoutMs);

    /**
     * Posts more receives (wrIds continue from the last).
     *
     * @param count how many.
     */
    void postRecvs(int count);

    /**
     * @param count     completions wanted.
     * @param timeoutMs longest wait.
     * @return the completions that arrived (fewer on timeout).
     */
    Completion[] pollRecv(int count, long timeoutMs);

    /**
     * @param wrId   a receive's wrId.
     * @param length bytes.
     * @return the start of that receive's buffer.
     */
    byte[] recvData(long wrId, int length);

    /** @return the accepted QP's state. */
    QpState qpState();

    /** Closes the accepted QP (the test's QP should go to ERROR). */
    void closeQp();

    /**
     * Starts {@code count} local atomic increments of a long in the background.
     *
     * @param regionId region.
     * @param offset   8-byte aligned offset.
     * @param count    increments.
     */
    void startLocalAdds(int regionId, long offset, int count);

    /** Waits for {@link #startLocalAdds} to finish. */
    void awaitLocalAdds();

    /**
     * Makes the accepting side (role 1) of the mixed two-way stress, a {@link MixedTrafficSide} with its own queue
     * pair, completion queue and regions, and starts accepting the next connection with it in the background (finish
     * with {@link #awaitAccepted(long)}).
     *
     * @param limits limits both sides use.
     * @param seed   the run's seed.
     * @param rounds most rounds that will run.
     * @return the side's {@link MixedTrafficSide#localInfo()}.
     */
    String mixedAccept(MixedSchedule.Limits limits, long seed, int rounds);

    /**
     * @param info the connecting side's {@link MixedTrafficSide#localInfo()}.
     */
    void mixedRemote(String info);

    /**
     * Starts running the peer's schedule of a round in the background ({@link MixedTrafficSide#runRound(int)}).
     *
     * @param round the round.
     */
    void mixedStart(int round);

    /**
     * Waits for the round started by {@link #mixedStart(int)}, then (the caller's own round being done) checks what the
     * caller did to the peer's memory ({@link MixedTrafficSide#verifyIncoming(int)}).
     *
     * @param timeoutMs longest wait.
     * @return null if the round passed on the peer's side, else what went wrong.
     */
    String mixedAwait(long timeoutMs);

    /**
     * Closes the peer's mixed-traffic side.
     *
     * @return operations completed and payload bytes checked by the peer, over all rounds.
     */
    long[] mixedClose();

    /** Ends the peer. */
    @Override
    void close();

    /**
     * A region the peer owns.
     *
     * @param id      the peer's id for it.
     * @param address its address.
     * @param rkey    its rkey.
     * @param length  its length.
     */
    record RegionInfo(int id, long address, int rkey, long length)
    {
    }

    /**
     * A completion as primitives.
     *
     * @param wrId       wrId.
     * @param status     status.
     * @param opcode     opcode.
     * @param byteLength length.
     * @param immediate  immediate data.
     * @param flags      flags.
     * @param qpNumber   queue pair.
     */
    record Completion(long wrId, int status, int opcode, int byteLength, int immediate, int flags, int qpNumber)
    {
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;

import io.verbs4j.Capabilities;
import io.verbs4j.ConnectionException;
import io.verbs4j.Opcode;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.QpState;
import io.verbs4j.QueuePair;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.RemoteMemory;
import io.verbs4j.WcStatus;

/**
 * A queue pair's state machine and what drives it, shared by every provider: the transitions (RESET to INIT by
 * hand, to RTR and RTS through a connection manager, to ERROR from anywhere, back to RESET once the flushed
 * completions are polled), the completions the provider reports (handed to the completion queues in posting order;
 * any error moves the queue pair to ERROR), the flush of both {@link WorkQueue}s on ERROR, the close, and
 * {@link #mapRemote}, which needs RTS and the device's {@link Capabilities#DIRECT_PEER_ACCESS}.
 * <p>
 * The post path (validation, the optional posting lock, publishing and the hand-off to the provider) is
 * {@link AbstractQueuePair}, the only subclass and the class providers extend. It reads {@link #state},
 * {@link #closed} and the two queues straight from these package-private fields, so a post pays no call for them,
 * and flushes through {@link #flushAndDrain()} when it finds ERROR after publishing.
 * <p>
 * Threading: the provider completes from any thread; {@link #modify} and {@link #close} from any thread. The state
 * changes by CAS on one volatile field, and {@link #enterError()} flushes after its CAS: a post either published its
 * slots before that flush, or sees ERROR when it re-reads the state after publishing.
 * <p>
 * Package-private, so that the SPI shows one queue-pair class: Javadoc documents these members in
 * {@link AbstractQueuePair}. Every public method here must stay final: javac gives a public class a bridge method,
 * a call level more, for each non-final public method it inherits from a package-private one.
 */
abstract class QueuePairStateMachine implements QueuePair
{
    private static final VarHandle STATE;

    static
    {
        try
        {
            STATE = MethodHandles.lookup().findVarHandle(QueuePairStateMachine.class, "state", QpState.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final AbstractProtectionDomain pd;
    private final QueuePairConfig config;
    private final Capabilities capabilities;
    private final int qpNumber;
    /** The send queue's completion queue; the post path gives it to {@link DirectSend}. */
    final BaseCompletionQueue sendCq;
    private final BaseCompletionQueue recvCq;
    /** Read by the post path without a call, as are {@link #recvQueue}, {@link #state} and {@link #closed}. */
    final WorkQueue sendQueue;
    final WorkQueue recvQueue;
    /** Written only here (transitions by CAS through STATE, the move back to RESET); read on every post. */
    volatile QpState state = QpState.RESET;
    /** Written only by {@link #close()}. */
    volatile boolean closed;

    /**
     * @param pd       owning domain.
     * @param config   validated attributes (CQs are {@link BaseCompletionQueue}s of the same device).
     * @param qpNumber number unique in the device.
     */
    QueuePairStateMachine(final AbstractProtectionDomain pd, final QueuePairConfig config, final int qpNumber)
    {
        this.pd = pd;
        this.config = config;
        this.capabilities = pd.device().capabilities();
        this.qpNumber = qpNumber;
        this.sendCq = (BaseCompletionQueue)config.sendCq();
        this.recvCq = (BaseCompletionQueue)config.recvCq();
        final boolean singleThread = pd.device().singleThreaded();
        this.sendQueue = new WorkQueue(true, config.sendDepth(), config.maxSendSge(), config.maxInlineLength(),
            singleThread);
        this.recvQueue = new WorkQueue(false, config.recvDepth(), config.maxRecvSge(), 0, singleThread);
    }

    /** {@inheritDoc} */
    public final int qpNumber()
    {
        return qpNumber;
    }

    /** {@inheritDoc} */
    public final QpState state()
    {
        return state;
    }

    /** {@inheritDoc} */
    public final QueuePairConfig config()
    {
        return config;
    }

    /** {@inheritDoc} */
    public final ProtectionDomain protectionDomain()
    {
        return pd;
    }

    /** @return the domain, with its key table. */
    public final AbstractProtectionDomain domain()
    {
        return pd;
    }

    /** @return the send queue. */
    public final WorkQueue sendQueue()
    {
        return sendQueue;
    }

    /** @return the receive queue. */
    public final WorkQueue recvQueue()
    {
        return recvQueue;
    }

    /** {@inheritDoc} */
    public final int sendQueueFree()
    {
        return sendQueue.free();
    }

    /** {@inheritDoc} */
    public final int recvQueueFree()
    {
        return recvQueue.free();
    }

    /** @return true once closed. */
    public final boolean isClosed()
    {
        return closed;
    }

    /** {@inheritDoc} */
    public final void modify(final QpState target)
    {
        Objects.requireNonNull(target, "target");
        if (closed)
        {
            throw new IllegalStateException("queue pair " + qpNumber + " is closed; create a new one");
        }
        final QpState current = state;
        if (target == current && QpState.ERROR != target)
        {
            return;
        }
        switch (target)
        {
            case INIT:
                if (QpState.RESET == current && STATE.compareAndSet(this, QpState.RESET, QpState.INIT))
                {
                    return;
                }
                break;
            case ERROR:
                enterError();
                return;
            case RESET:
                if (QpState.ERROR == current)
                {
                    if (!sendQueue.isDrained() || !recvQueue.isDrained())
                    {
                        throw new IllegalStateException("queue pair " + qpNumber + " still has flushed work requests " +
                            "not handed to its completion queue; poll the CQ, then reset");
                    }
                    sendQueue.clearError();
                    recvQueue.clearError();
                    onReset();
                    state = QpState.RESET;
                    return;
                }
                break;
            default:
                throw new IllegalStateException("move a queue pair to " + target + " by connecting it through the " +
                    "ConnectionManager (connect or accept), not by modify()");
        }
        throw new IllegalStateException("queue pair " + qpNumber + " cannot go from " + current + " to " + target +
            "; allowed by hand: RESET->INIT, any->ERROR, ERROR->RESET");
    }

    /** {@inheritDoc} */
    public final void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        enterError();
        onClose();
        sendCq.detach(config.sendDepth());
        recvCq.detach(config.recvDepth());
        sendCq.untrack(this);
        recvCq.untrack(this);
        pd.removeQueuePair(this);
    }

    /** {@inheritDoc} */
    public final RemoteMemory mapRemote(final long remoteAddress, final int rkey, final long length, final int access)
    {
        if (!capabilities.has(Capabilities.DIRECT_PEER_ACCESS))
        {
            throw noDirectPeerAccess();
        }
        MappedRemoteMemory.checkArguments(length, access);
        final QpState current = state;
        if (closed || QpState.RTS != current)
        {
            throw new IllegalStateException("queue pair " + qpNumber + " is " + (closed ? "closed" : current) +
                ": mapRemote needs a connected queue pair (RTS)");
        }
        return mapPeerRegion(remoteAddress, rkey, length, access);
    }

    /**
     * The provider's part of {@link #mapRemote}, called with validated arguments on a queue pair in RTS, only when
     * the device advertises {@link Capabilities#DIRECT_PEER_ACCESS} (a provider that does overrides it).
     *
     * @param remoteAddress peer-side address.
     * @param rkey          peer rkey.
     * @param length        bytes, 1 to {@link Integer#MAX_VALUE}.
     * @param access        REMOTE_* bits.
     * @return the view.
     */
    protected RemoteMemory mapPeerRegion(final long remoteAddress, final int rkey, final long length,
        final int access)
    {
        throw noDirectPeerAccess();
    }

    private UnsupportedOperationException noDirectPeerAccess()
    {
        return new UnsupportedOperationException("the " + pd.device().name() + " device cannot map a peer's " +
            "memory (Capabilities.DIRECT_PEER_ACCESS is not advertised): use RDMA_WRITE, RDMA_READ and atomics");
    }

    /**
     * For connection managers: moves a RESET or INIT queue pair to RTR and then RTS once the provider has bound it
     * to its peer.
     *
     * @throws ConnectionException if the queue pair is closed, in ERROR or already connected.
     */
    protected final void moveToRts()
    {
        if (closed)
        {
            throw new ConnectionException("queue pair " + qpNumber + " is closed");
        }
        final QpState current = state;
        if (QpState.RESET != current && QpState.INIT != current)
        {
            throw new ConnectionException("queue pair " + qpNumber + " is " + current +
                "; only a RESET or INIT queue pair can be connected (reset it first after an error)");
        }
        if (!STATE.compareAndSet(this, current, QpState.RTR))
        {
            throw new ConnectionException("queue pair " + qpNumber + " changed state while connecting");
        }
        if (!STATE.compareAndSet(this, QpState.RTR, QpState.RTS))
        {
            throw new ConnectionException("queue pair " + qpNumber + " failed while connecting: " + state);
        }
    }

    /**
     * For connection managers: checks a queue pair can be connected, before any handshake.
     *
     * @throws ConnectionException if not.
     */
    protected final void checkConnectable()
    {
        final QpState current = state;
        if (closed || (QpState.RESET != current && QpState.INIT != current))
        {
            throw new ConnectionException("queue pair " + qpNumber + " is " + (closed ? "closed" : current) +
                "; only a RESET or INIT queue pair can be connected");
        }
    }

    /**
     * Reports the result of a send work request. Any status but SUCCESS and WR_FLUSH_ERR moves the queue pair to
     * ERROR. Any thread; once per position (later calls are ignored).
     *
     * @param pos        send-queue position.
     * @param status     a {@link WcStatus}.
     * @param byteLength bytes transferred.
     */
    public final void completeSend(final long pos, final int status, final int byteLength)
    {
        if (WcStatus.SUCCESS == status &&
            sendQueue.completeInOrder(pos, sendQueue.opcode(pos), byteLength, 0, 0, sendCq, qpNumber))
        {
            return;
        }
        if (sendQueue.complete(pos, status, sendQueue.opcode(pos), byteLength, 0, 0) &&
            WcStatus.SUCCESS != status && WcStatus.WR_FLUSH_ERR != status)
        {
            enterError();
        }
        sendQueue.drain(sendCq, qpNumber);
    }

    /**
     * For the provider's single receiving thread: the next posted receive, in order.
     *
     * @return its position, or -1 when none is posted (receiver not ready).
     */
    public final long takeRecv()
    {
        return recvQueue.take();
    }

    /**
     * Reports the result of a receive taken with {@link #takeRecv()}. A status other than SUCCESS moves the queue pair
     * to ERROR.
     *
     * @param pos        receive-queue position.
     * @param status     a {@link WcStatus}.
     * @param opcode     {@link Opcode#RECV} or {@link Opcode#RECV_RDMA_WITH_IMM}.
     * @param byteLength bytes received.
     * @param immediate  immediate data.
     * @param cqFlags    {@link io.verbs4j.CompletionHandler#WITH_IMM} or 0.
     */
    public final void completeRecv(
        final long pos,
        final int status,
        final int opcode,
        final int byteLength,
        final int immediate,
        final int cqFlags)
    {
        if (WcStatus.SUCCESS == status &&
            recvQueue.completeInOrder(pos, opcode, byteLength, immediate, cqFlags, recvCq, qpNumber))
        {
            return;
        }
        if (recvQueue.complete(pos, status, opcode, byteLength, immediate, cqFlags) && WcStatus.SUCCESS != status)
        {
            enterError();
        }
        recvQueue.drain(recvCq, qpNumber);
    }

    /**
     * For the post path: publishes a receive whose SGEs failed the local checks and completes it with that status,
     * which moves the queue pair to ERROR, as verbs reports a bad receive SGE.
     *
     * @param pos         the reserved and filled receive-queue position.
     * @param localStatus the status of the checks, not SUCCESS.
     */
    final void failRecvAtPost(final long pos, final int localStatus)
    {
        recvQueue.publish(pos);
        if (recvQueue.complete(pos, localStatus, Opcode.RECV, 0, 0, 0))
        {
            enterError();
        }
        recvQueue.drain(recvCq, qpNumber);
    }

    /**
     * Fails the connection: the oldest outstanding send (if any) completes with {@code status}, then everything else
     * flushes. For a dead peer use {@link WcStatus#RETRY_EXC_ERR}.
     *
     * @param status the status for the oldest outstanding send.
     */
    public final void fail(final int status)
    {
        sendQueue.completeOldestPending(status);
        enterError();
    }

    /**
     * Moves to ERROR (once: the provider hook runs on the first transition), flushes and drains both queues.
     */
    public final void enterError()
    {
        while (true)
        {
            final QpState current = state;
            if (QpState.ERROR == current)
            {
                break;
            }
            if (STATE.compareAndSet(this, current, QpState.ERROR))
            {
                onEnterError(current);
                break;
            }
        }
        flushAndDrain();
    }

    /**
     * Flushes whatever is pending in both queues and hands it to the completion queues: after the move to ERROR, and
     * by the post path when it finds ERROR after publishing.
     */
    final void flushAndDrain()
    {
        sendQueue.flushPending();
        recvQueue.flushPending();
        sendQueue.drain(sendCq, qpNumber);
        recvQueue.drain(recvCq, qpNumber);
    }

    /**
     * Called once when the queue pair enters ERROR: tell the peer, stop I/O. Must not block.
     *
     * @param previous the state it left.
     */
    protected abstract void onEnterError(QpState previous);

    /** Called on ERROR to RESET: forget the peer so the queue pair can be connected again. */
    protected abstract void onReset();

    /** Called once on close, after the transition to ERROR: release provider resources. */
    protected abstract void onClose();
}

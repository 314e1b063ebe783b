// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import io.netty.channel.ChannelHandlerContext;

/**
 * Who reads one connection's socket, and when: the I/O thread, or the threads that poll a completion queue (which
 * read through the connection's {@link TcpSocketPoller}). In polling mode Netty stops reading the socket: polling
 * threads read it on every poll, and the event loop reads it as a backstop every
 * {@link TcpConfiguration#pollBackstopNs()} (applications that do not poll, failure detection). In event mode with
 * {@link TcpConfiguration#pollerReads()}, Netty keeps reading and polling threads read too, whoever comes first, but
 * only within {@link #POLLER_PATIENCE_NS} of the last sign of input; while they read often ({@link TcpReadCadence}:
 * each read with data within that patience of the previous one), the socket leaves epoll's read interest
 * ({@link TcpConfiguration#POLLER_OWNS_READS_PROP_NAME}) so that arrivals do not also wake the I/O thread, and goes
 * back one tick after the pollers stop polling often (each poll within the patience of the previous one, data or
 * not, if no bulk batch came lately; past the patience they read once per {@link #IDLE_READ_INTERVAL_NS}). Both
 * ticks, the backstop and the ownership tick, back off while the pollers keep polling ({@link TcpTickPeriod}, up to
 * {@link #TICK_MAX_BACKOFF} times the base). It also tells the I/O thread whether to stay awake after a bulk batch
 * ({@link #unpolledSinceLastAsked()}, {@link #postedBulkRecently()}).
 * <p>
 * This class decides and schedules; it reads nothing. What a tick does besides deciding, polling mode's backstop
 * read and the release of an ACK held for an application that stopped polling, is the poller's, run through the
 * {@link Runnable}s it passes in.
 * <p>
 * Threading: {@link #readsThisPoll()}, {@link #markLooked()} and {@link #pollersReading()} from any polling thread
 * without the driver lock; {@link #countPoll()} and {@link #onPollerRead()} with it held (after the poller's
 * try-lock), {@link #onReadsOften()} once the poller released it; {@link #readAsksForMore()} with the lock held, by a
 * poller or the I/O thread. Set-up, the ticks and {@link #stop()} on the connection's event loop. The mode flags are
 * plain fields written before the poller is registered with the device (which publishes them); what pollers and the
 * event loop share after that is volatile or, where marked, racy by design.
 */
final class TcpReadPolicy
{
    /**
     * Event mode: how long after the last sign of input (a post or a frame written, which will be answered, or data
     * read) polling threads keep reading a connection; then they leave it to the I/O thread until the next such
     * sign. A waiter's spin phase thus stops making a system call per step once nothing came for a round trip and
     * more, and leaves the CPU to the threads that write (on a 2-core machine a spin phase full of system calls
     * starved them).
     */
    static final long POLLER_PATIENCE_NS = 200_000;
    /**
     * Event mode, pollers owning the reads, past the patience: they read the socket once per this interval (a
     * system call per poll no longer, and nothing waits longer than this for a poller that keeps polling).
     */
    static final long IDLE_READ_INTERVAL_NS = 20_000;
    /**
     * The ticks' period (event mode's ownership tick, polling mode's backstop) doubles, from
     * {@link TcpConfiguration#pollBackstopNs()} up to this many times it, while every tick finds that pollers polled
     * since the previous one. Each tick wakes the I/O thread and takes the driver lock: at a fixed 200 µs the
     * ownership tick preempted a spinning rank every twentieth 8 B AllReduce over tcp, and a tenth of the calls took
     * 3-4x the median (mean 10-12 µs, p90 17-25; with ticks 10x rarer 7.2-7.4 µs, p90 8); the backstop made one
     * busy-polled 8 B WRITE round trip in a hundred take 2-4 ms. A first tick after the pollers stopped comes at most
     * this many periods late, so an application that stops polling waits at most that long for the I/O thread (or,
     * for a held ACK, its peer for the completion).
     */
    static final int TICK_MAX_BACKOFF = 8;
    /**
     * Event mode: a bulk read counts as a sign of input to come while the application posted a request within this
     * long ({@link #readAsksForMore()}). A collective's rank posts every step (a 1 MiB AllReduce of two ranks every
     * ~300 µs) and its polls must keep reading its peer's chunks between its posts, also once its own requests are
     * answered; a stream's receiver never posts.
     */
    static final long POSTED_RECENTLY_NS = 10 * POLLER_PATIENCE_NS;
    /**
     * Event mode, pollers owning the reads: after a poller's bulk read, polls with nothing to read do not keep the
     * reads until this many ownership ticks have passed ({@link #pollsKeepReads}).
     */
    static final int BULK_QUIET_TICKS = 2;
    private static final VarHandle LOOKED;

    static
    {
        try
        {
            LOOKED = MethodHandles.lookup().findVarHandle(TcpReadPolicy.class, "looked", boolean.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final TcpSocketPoller.Link link;
    private final TcpDevice device;
    private final TcpConfiguration configuration;
    private final TcpFrameDecoder decoder;
    private final TcpInputSigns signs;
    private final TcpRequester requester;
    private final Runnable backstopRead;
    private final Runnable releaseHeldAck;
    private final Runnable takeReadsTask = this::takeReadsFromEpoll;
    private ChannelHandlerContext ctx;
    private boolean pollDriven;
    private boolean polled;
    private boolean readsShared;
    private boolean mayOwnReads;
    /** Event loop: polling mode's backstop; running from the start of polling mode until stopped. */
    private final TcpRepeatingTick backstop = new TcpRepeatingTick(this::onBackstopTick);
    private final TcpTickPeriod tickPeriod;
    private long backstopsSkipped;
    /** Event loop: the tick that hands the socket back to epoll once pollers stop; not running while epoll reads. */
    private final TcpRepeatingTick ownership = new TcpRepeatingTick(this::onOwnershipTick);
    /** Event loop: ticks run (tests: a tick that keeps its period makes no new task). */
    private long ticksRun;
    /** The current period of the ownership tick or the backstop, as other threads see it (tests, diagnostics). */
    private volatile long tickPeriodNs;
    /** Pollers own the reads (or asked to): the I/O thread's epoll read interest is off, or about to be. */
    private volatile boolean pollersOwnReads;
    /**
     * Since the last tick: event mode, a poller read data often (ownership tick); polling mode, a poller took the
     * driver lock to read (backstop).
     */
    private volatile boolean polledSinceTick;
    private final TcpReadCadence cadence = new TcpReadCadence(POLLER_PATIENCE_NS);
    /**
     * Event mode, while pollers own the reads: whether they still poll often (each poll within the patience of the
     * previous one), data or not, which keeps the reads theirs ({@link #onOwnershipTick()}).
     */
    private final TcpReadCadence pollCadence = new TcpReadCadence(POLLER_PATIENCE_NS);
    /** When a poller owning the reads last read past the patience (pollers race on it: a throttle, not a count). */
    private long idleReadNs;
    /** Ownership ticks so far (the event loop writes, pollers read). */
    private volatile long ownershipTicks;
    /** Driver lock held: {@link #ownershipTicks} when a poller last read a bulk batch (never: long ago). */
    private long bulkReadTick = -BULK_QUIET_TICKS;
    private long idleReads;
    private volatile long readsTaken;
    /**
     * Event mode: a poller that would read this socket now (within the patience or owning the reads) called
     * {@link TcpSocketPoller#progress()} since the last {@link #unpolledSinceLastAsked()}. Pollers set it only when
     * it is clear (a load per poll, a store once per I/O-thread question), the I/O thread clears it.
     */
    private boolean looked;
    private volatile long readsGivenBack;

    /**
     * @param link           the connection.
     * @param device         the device.
     * @param decoder        the connection's decoder (the size of the last read batch).
     * @param signs          the connection's signs of input to come.
     * @param requester      the connection's requester (whether requests await their answers).
     * @param backstopRead   event loop, polling mode's backstop found no poller since the previous tick: read the
     *                       socket and send a held ACK, under the driver lock.
     * @param releaseHeldAck event loop, on each ownership tick: send an ACK held for an application that stopped
     *                       polling.
     */
    TcpReadPolicy(
        final TcpSocketPoller.Link link,
        final TcpDevice device,
        final TcpFrameDecoder decoder,
        final TcpInputSigns signs,
        final TcpRequester requester,
        final Runnable backstopRead,
        final Runnable releaseHeldAck)
    {
        this.link = link;
        this.device = device;
        this.configuration = device.configuration();
        this.decoder = decoder;
        this.signs = signs;
        this.requester = requester;
        this.backstopRead = backstopRead;
        this.releaseHeldAck = releaseHeldAck;
        this.tickPeriod = new TcpTickPeriod(configuration.pollBackstopNs(), TICK_MAX_BACKOFF);
    }

    /**
     * Event loop, channel set-up, before the first read: whether pollers may read this socket (epoll without TLS,
     * polling mode or {@link TcpConfiguration#pollerReads()}); if they may, the I/O thread's read loops must take
     * the driver lock.
     *
     * @param ctx the connection's context (its executor runs the ticks, its auto-read is epoll's read interest).
     * @return true if pollers may read this socket.
     */
    boolean shareReads(final ChannelHandlerContext ctx)
    {
        this.ctx = ctx;
        if (ctx.channel() instanceof io.netty.channel.epoll.EpollSocketChannel && null == device.tls() &&
            (configuration.pollingMode() || configuration.pollerReads()))
        {
            readsShared = true;
        }
        return readsShared;
    }

    /**
     * Event loop, established, the socket's descriptor known: whether polling threads start reading, where they
     * may. Called before the poller is registered with the device, which publishes what this sets.
     *
     * @return true if polling threads read this socket from now on (register the poller).
     */
    boolean start()
    {
        if (configuration.pollingMode())
        {
            startPollDriven();
            return true;
        }
        if (readsShared)
        {
            // Event mode: Netty keeps reading (idle connections, parked waiters), and a thread polling a
            // completion queue of this device reads too, whoever comes first (TcpReadOwnership).
            polled = true;
            mayOwnReads = configuration.pollerOwnsReads();
            return true;
        }
        return false;
    }

    /**
     * @return whether polling threads read this socket now: in polling mode; in event mode while they own the reads
     * (epoll's read interest is off, so nobody else would read what arrives before the next ownership tick — a
     * 1 MiB AllReduce whose chunks came more than the patience after its posts waited for that tick); otherwise
     * within the patience.
     */
    boolean pollersReading()
    {
        return pollDriven || pollersOwnReads || System.nanoTime() - signs.inputExpectedNs() <= POLLER_PATIENCE_NS;
    }

    /**
     * Driver lock held, pollers owning the reads: whether this poll counts toward keeping them, data or not. It does
     * when it comes within the patience of the previous such poll, and no poller read a bulk batch in this tick
     * period or the one before ({@link #BULK_QUIET_TICKS}): a READ stream's initiator polls all the time, but its
     * responses are read faster by the I/O thread, which stays awake between bulk batches (64 KiB READs 2.2-2.5
     * GB/s; with the pollers keeping the reads 1.3-2.0). So after a bulk stream the socket goes back to epoll at the
     * second tick. Counted in ticks, not in time: with a time window, a tick that came late (the event loop
     * waiting for a core that two polling threads kept) found the window over and the polls keeping the reads
     * again, and the socket stayed with the pollers (one run in 25 of a unit test).
     *
     * @param nowNs the clock.
     * @return true if the reads stay the pollers'.
     */
    private boolean pollsKeepReads(final long nowNs)
    {
        return ownershipTicks - bulkReadTick >= BULK_QUIET_TICKS && pollCadence.onRead(nowNs);
    }

    /**
     * Any polling thread, before it tries the driver lock.
     *
     * @return whether this poll reads the socket: always in polling mode; in event mode within the patience; past it
     * only while the pollers own the reads (nobody else reads then), at most once per {@link #IDLE_READ_INTERVAL_NS},
     * so that a thread that keeps polling through an idle spell does not make a system call per poll.
     */
    boolean readsThisPoll()
    {
        if (pollDriven)
        {
            return true;
        }
        final long now = System.nanoTime();
        if (now - signs.inputExpectedNs() <= POLLER_PATIENCE_NS)
        {
            return true;
        }
        if (!pollersOwnReads || now - idleReadNs < IDLE_READ_INTERVAL_NS)
        {
            return false;
        }
        idleReadNs = now;
        idleReads++;
        return true;
    }

    /** @return polls that read past the patience while owning the reads (racy count; tests, diagnostics). */
    long idleReads()
    {
        return idleReads;
    }

    /**
     * Any polling thread whose poll reads ({@link #readsThisPoll()}), before it tries the driver lock: event mode,
     * a poller that would read was here, so the I/O thread's {@link TcpReadSpin} needs no spin
     * ({@link #unpolledSinceLastAsked()}).
     */
    void markLooked()
    {
        if (!pollDriven && !(boolean)LOOKED.getOpaque(this))
        {
            LOOKED.setOpaque(this, true);
        }
    }

    /**
     * Event loop: whether no polling thread that would read looked at this socket since the last call (an
     * application that polls now and then, past the patience, does not count): nobody but the I/O thread is
     * there to read what comes next, so it is worth keeping the I/O thread awake after a bulk batch
     * ({@link TcpReadSpin}) — unless the application posted bulk recently ({@link #postedBulkRecently()}): a
     * collective's rank busy reducing or writing between its looks reads its next chunk itself soon, and the I/O
     * thread's spin took a core from the two ranks (0.1-0.4 spins of 250 µs per 1 MiB AllReduce, which took 7 % longer
     * for it). A perftest WRITE target that polls once a millisecond counts as unpolled; the ranks of a collective,
     * which poll all the time, do not (their I/O thread spinning took the cores from them: a 1 MiB AllReduce of two
     * ranks 650 -> 690-810 µs).
     *
     * @return true if no such {@link TcpSocketPoller#progress()} call happened since the previous call of this
     * method.
     */
    boolean unpolledSinceLastAsked()
    {
        return !(boolean)LOOKED.getAndSet(this, false);
    }

    /**
     * Polling mode on epoll: Netty stops reading this socket; reads happen in {@link TcpSocketPoller#progress()}
     * (from the application's completion-queue polling, through the device's {@code Progress}) and, as a backstop
     * for applications that do not poll (one-sided targets) and for failure detection, on the I/O thread every
     * {@link TcpConfiguration#pollBackstopNs()}, less often while the application polls ({@link TcpTickPeriod}).
     */
    private void startPollDriven()
    {
        pollDriven = true;
        polled = true;
        ctx.channel().config().setAutoRead(false);
        readsTaken++;
        scheduleBackstop(tickPeriod.reset());
    }

    private void scheduleBackstop(final long periodNs)
    {
        tickPeriodNs = periodNs;
        backstop.keep(ctx.executor(), periodNs);
    }

    /**
     * Driver lock held, a poll about to read (after its try-lock): this poll counts for the next tick, where it
     * should.
     */
    void countPoll()
    {
        if (pollDriven && !polledSinceTick)
        {
            // The backstop has nothing to do while this goes on (a store once per tick, not once per poll).
            polledSinceTick = true;
        }
        if (pollersOwnReads && !polledSinceTick && pollsKeepReads(System.nanoTime()))
        {
            // Pollers that took the reads keep them while they poll often, even with nothing to read: ranks
            // waiting for their peers (4 on 2 cores) lost them at a tick that found no data read since the last,
            // and the I/O threads' wake-up per arrival then took a fifth of the cores (8 B AllReduce over tcp
            // 127-322 µs; keeping the reads 84-240).
            polledSinceTick = true;
        }
    }

    /**
     * Driver lock held, after a poller's read that brought data and before what follows it: notes a bulk batch
     * ({@link #BULK_QUIET_TICKS}) and a sign of input to come ({@link #readAsksForMore()}).
     *
     * @return true if the pollers read often enough to own the reads (pass it on to {@link #onReadsOften()} once
     * the lock is released).
     */
    boolean onPollerRead()
    {
        if (decoder.batchBytes() >= TcpReadSpin.BULK_BATCH_BYTES)
        {
            bulkReadTick = ownershipTicks;
        }
        // Only pollers that read often own the reads (an application polling now and then kept a READ
        // target's requests waiting: one-way 29-36 µs typical, 115-131 mean; TcpReadCadence).
        final boolean asksForMore = readAsksForMore();
        final boolean readsOften = asksForMore && mayOwnReads && cadence.onRead(System.nanoTime());
        if (asksForMore)
        {
            signs.expectInput();
        }
        return readsOften;
    }

    /**
     * Polling thread, driver lock released, its read found the pollers reading often: the reads become theirs (the
     * event loop takes the socket out of epoll's read interest, {@link #takeReadsFromEpoll()}).
     */
    void onReadsOften()
    {
        if (!polledSinceTick)
        {
            // A read, not a store, on most polls: the flag is set once per tick period, not once per read.
            polledSinceTick = true;
        }
        if (!pollersOwnReads)
        {
            pollersOwnReads = true;
            ctx.executor().execute(takeReadsTask);
        }
    }

    /**
     * Driver lock held, after decoding a read (by a poller or the I/O thread): whether it is a sign that more input
     * comes soon, which keeps polling threads reading ({@link TcpInputSigns}). A read of small frames is;
     * so is any read while this side's requests await their answers, or within {@link #POSTED_RECENTLY_NS} of the
     * application's last post. A bulk batch ({@link TcpReadSpin#BULK_BATCH_BYTES} or more) to a side that does not
     * post is a one-way stream to it (a SEND stream's receiver): its I/O thread reads that faster than an application
     * thread that reads, completes and reposts receives alone (1 MiB SENDs 3.6-4.2 against 4.4-6.5 GB/s), and it
     * stays awake between batches while no poller looks ({@link TcpReadSpin}).
     *
     * @return true if polling threads should keep reading this socket.
     */
    boolean readAsksForMore()
    {
        return pollDriven || decoder.batchBytes() < TcpReadSpin.BULK_BATCH_BYTES || requester.awaitsAnswers() ||
            postedRecently();
    }

    /**
     * @return whether the application posted a request within {@link #POSTED_RECENTLY_NS}: it takes part in an
     * exchange (a collective's steps) rather than only receiving a stream.
     */
    boolean postedRecently()
    {
        return System.nanoTime() - signs.postedNs() <= POSTED_RECENTLY_NS;
    }

    /**
     * @return whether the application posted a request with a bulk payload within {@link #POSTED_RECENTLY_NS}: its
     * thread has bulk writes of its own to do (a collective's chunks), and an I/O thread spinning beside it takes its
     * core. A READ stream's initiator posts only small requests; its I/O thread's spin serves it (64 KiB READs
     * 1.6-2.0 GB/s without, 2.0-3.5 with).
     */
    boolean postedBulkRecently()
    {
        return System.nanoTime() - signs.bulkPostedNs() <= POSTED_RECENTLY_NS;
    }

    /**
     * Event loop, polling mode: reads the socket, and sends a held ACK, unless a poller took the driver lock since the
     * last tick (then it does both itself, and the tick backs off rather than contend for the lock with it).
     */
    private void onBackstopTick()
    {
        ticksRun++;
        if (!polled)
        {
            return;
        }
        if (polledSinceTick)
        {
            polledSinceTick = false;
            backstopsSkipped++;
            scheduleBackstop(tickPeriod.backOff());
            return;
        }
        scheduleBackstop(tickPeriod.reset());
        backstopRead.run();
    }

    /**
     * Event loop, after a poller's read: pollers read this socket now, so arrivals stop waking the I/O thread (epoll
     * read interest off) until a tick period passes with no poller read ({@link #onOwnershipTick()}).
     */
    private void takeReadsFromEpoll()
    {
        if (ownership.isRunning() || !pollersOwnReads || link.isClosed())
        {
            return;
        }
        ctx.channel().config().setAutoRead(false);
        readsTaken++;
        scheduleOwnershipTick(tickPeriod.reset());
    }

    /** Event loop: the next ownership tick, {@code periodNs} from now. */
    private void scheduleOwnershipTick(final long periodNs)
    {
        tickPeriodNs = periodNs;
        ownership.keep(ctx.executor(), periodNs);
    }

    /**
     * Event loop, while pollers own the reads: every {@link TcpConfiguration#pollBackstopNs()} at first, then at a
     * period that doubles (up to {@link #TICK_MAX_BACKOFF} times) for as long as the pollers keep reading or
     * polling often. If none did since the last tick, epoll reads again (turning the interest back on reports what
     * arrived meanwhile, so nothing waits longer than two ticks for an application that stopped polling).
     */
    private void onOwnershipTick()
    {
        ticksRun++;
        ownershipTicks++;
        releaseHeldAck.run();
        if (polledSinceTick && !link.isClosed())
        {
            polledSinceTick = false;
            scheduleOwnershipTick(tickPeriod.backOff());
            return;
        }
        giveReadsBackToEpoll();
    }

    private void giveReadsBackToEpoll()
    {
        ownership.cancel();
        pollersOwnReads = false;
        if (!link.isClosed())
        {
            ctx.channel().config().setAutoRead(true);
        }
        readsGivenBack++;
    }

    /** @return how often pollers took the reads from epoll (event loop writes; tests, diagnostics). */
    long readsTaken()
    {
        return readsTaken;
    }

    /** @return the current period of the ownership tick or backstop, ns (event loop writes; tests, diagnostics). */
    long tickPeriodNs()
    {
        return tickPeriodNs;
    }

    /** @return backstop and ownership ticks run so far (event loop writes; tests, diagnostics). */
    long ticksRun()
    {
        return ticksRun;
    }

    /** @return tick tasks scheduled so far: one per start and per change of period (tests, diagnostics). */
    long ticksMade()
    {
        return backstop.made() + ownership.made();
    }

    /** @return how often polling mode's backstop found a poller had been there and let it be (tests, diagnostics). */
    long backstopsSkipped()
    {
        return backstopsSkipped;
    }

    /** @return how often the reads went back to epoll. */
    long readsGivenBack()
    {
        return readsGivenBack;
    }

    /** @return whether epoll reads the socket now (Netty's auto-read), as seen from any thread. */
    boolean epollReads()
    {
        return null != ctx && ctx.channel().config().isAutoRead();
    }

    /**
     * Event loop, driver lock held: the connection closed; no more ticks.
     *
     * @return true if polling threads read this socket until now (unregister the poller).
     */
    boolean stop()
    {
        backstop.cancel();
        ownership.cancel();
        if (polled)
        {
            polled = false;
            return true;
        }
        return false;
    }
}

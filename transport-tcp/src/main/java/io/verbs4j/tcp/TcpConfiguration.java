// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.util.concurrent.TimeUnit;

import io.verbs4j.config.ClusterSecret;
import io.verbs4j.config.DeviceContext;

/**
 * The one place where the tcp provider reads its settings. Each knob is a {@code *_PROP_NAME} with a
 * {@code *_DEFAULT}; values are read through {@link DeviceContext#get(String, String)} (a per-device property, else
 * the system property of the same name, else the default). {@link #of(DeviceContext)} reads and validates them
 * once, when a device opens; the instance is immutable.
 */
public final class TcpConfiguration
{
    /**
     * Interface to listen on (for wildcard endpoints) and to connect from, by name ({@code eth0}) or by address
     * ({@code 10.0.0.5}), in the spirit of {@code NCCL_SOCKET_IFNAME}. Empty: not set.
     */
    public static final String INTERFACE_PROP_NAME = "verbs4j.tcp.interface";
    /** Default interface: none. */
    public static final String INTERFACE_DEFAULT = "";

    /**
     * Whether a wildcard endpoint ({@code tcp://0.0.0.0:port}, {@code tcp://[::]:port}, {@code tcp://*:port}) may
     * listen on every interface when no {@link #INTERFACE_PROP_NAME} is set. Default false: such an endpoint then
     * listens on loopback only, and a warning says how to open it up.
     */
    public static final String BIND_ANY_PROP_NAME = "verbs4j.tcp.bind.any";
    /** Default: wildcard endpoints bind to loopback. */
    public static final String BIND_ANY_DEFAULT = "false";

    /** Number of I/O threads (Netty event loops) per device. */
    public static final String IO_THREADS_PROP_NAME = "verbs4j.tcp.io.threads";
    /** Default I/O threads: one, because ranks often outnumber cores. */
    public static final String IO_THREADS_DEFAULT = "1";

    /**
     * Progress mode: {@code event} (I/O threads sleep in epoll/select until the kernel or a post wakes them; threads
     * polling a completion queue read too, see {@link #POLLER_READS_PROP_NAME}) or {@code poll} (on epoll, the
     * application's completion-queue polls read and handle the sockets; the I/O threads read only as a backstop,
     * see {@link #POLL_BACKSTOP_PROP_NAME}).
     */
    public static final String MODE_PROP_NAME = "verbs4j.tcp.mode";
    /** Default mode: event-driven (whatever the device's threading mode; see {@link TcpDevice}). */
    public static final String MODE_DEFAULT = "event";

    /** Socket implementation: {@code auto} (epoll where available, else NIO), {@code epoll} or {@code nio}. */
    public static final String TRANSPORT_PROP_NAME = "verbs4j.tcp.transport";
    /** Default socket implementation: auto. */
    public static final String TRANSPORT_DEFAULT = "auto";

    /**
     * Most request bytes (payload of SEND/WRITE plus the length of READs) an initiator keeps unacknowledged per
     * connection; further requests wait in the send queue. One request larger than this still goes alone.
     */
    public static final String MAX_INFLIGHT_BYTES_PROP_NAME = "verbs4j.tcp.max.inflight.bytes";
    /** Default in-flight cap: 8 MiB. */
    public static final String MAX_INFLIGHT_BYTES_DEFAULT = Integer.toString(8 << 20);

    /** High water mark of a connection's outbound buffer: above it the initiator stops sending new requests. */
    public static final String WRITE_HIGH_WATER_MARK_PROP_NAME = "verbs4j.tcp.write.high.water.mark";
    /** Default high water mark: 2 MiB (the low mark is half of it). */
    public static final String WRITE_HIGH_WATER_MARK_DEFAULT = Integer.toString(2 << 20);

    /** Heartbeat interval in milliseconds; 0 means a quarter of the peer timeout. */
    public static final String HEARTBEAT_INTERVAL_PROP_NAME = "verbs4j.tcp.heartbeat.interval.ms";
    /** Default heartbeat interval: derived from the peer timeout. */
    public static final String HEARTBEAT_INTERVAL_DEFAULT = "0";

    /** How long an accepted socket may take to send its handshake before it is closed, in milliseconds. */
    public static final String HANDSHAKE_TIMEOUT_PROP_NAME = "verbs4j.tcp.handshake.timeout.ms";
    /** Default handshake timeout: 10 s. */
    public static final String HANDSHAKE_TIMEOUT_DEFAULT = "10000";

    /** SO_SNDBUF and SO_RCVBUF in bytes; 0 keeps the kernel's autotuning. */
    public static final String SOCKET_BUFFER_PROP_NAME = "verbs4j.tcp.socket.buffer.bytes";
    /** Default socket buffers: kernel autotuning. */
    public static final String SOCKET_BUFFER_DEFAULT = "0";

    /** Directory for the (immediately unlinked) files behind allocated regions. */
    public static final String MEMORY_DIR_PROP_NAME = "verbs4j.tcp.memory.dir";
    /** Default memory directory: /dev/shm (memory outside the JVM's direct-memory limit). */
    public static final String MEMORY_DIR_DEFAULT = "/dev/shm";

    /**
     * Whether a posting thread may write its requests straight to the socket (epoll only) when the I/O thread is not
     * using it and nothing is queued, instead of waking the I/O thread. {@code false} restores the hand-over to the
     * I/O thread on every post (for comparison).
     */
    public static final String DIRECT_WRITE_PROP_NAME = "verbs4j.tcp.direct.write";
    /**
     * Default: on (epoll, not under TLS). They are safe: a frame that the socket takes only in part is finished
     * before any other writer's frame starts ({@link TcpOutbound}'s invariant; the cross-process 4 MiB multi-poster
     * reproducer in {@code TcpLargeMessageTest} broke the stream before that). Alone they measured no faster than
     * handing each post to the I/O thread, but together with reads from the poller ({@link #POLLER_READS_PROP_NAME})
     * a ping-pong crosses no thread at all: on a quiet 2-core machine 8 B one-way in 8-12 µs most runs (a slow mode
     * near 34 µs in others) against 15-33 µs with both off; poller reads without direct writes were the worst
     * (52-54 µs: the acknowledgement and the next post still woke the I/O thread). Requests with more than 16 KiB
     * of payload are written by the posting or polling thread only while the window is mostly empty (a collective's
     * chunk: a 1 MiB AllReduce of two ranks took ~600 µs instead of ~850 with every such chunk handed over); in a
     * stream they go through the I/O thread, which writes streams faster (posting threads writing them cost 25 % of
     * the 1 MiB bandwidth; benchmarks/RESULTS.md, issue 12). Under TLS there are no direct writes whatever this
     * says: the socket carries ciphertext, so every byte goes through the I/O thread's {@code SslHandler}; likewise
     * on the NIO transport.
     */
    public static final String DIRECT_WRITE_DEFAULT = "true";

    /**
     * With {@link #DIRECT_WRITE_PROP_NAME}: payload bytes above which a request is always written by the I/O thread,
     * not by the posting or polling thread (READ requests and atomics carry none and are always eligible). Below it,
     * requests of more than 16 KiB are written directly only while the request bytes in flight with them stay within
     * a quarter of {@link #MAX_INFLIGHT_BYTES_PROP_NAME} (see {@link #DIRECT_WRITE_DEFAULT}); 16384 restores the
     * earlier rule (every bulk request through the I/O thread).
     */
    public static final String DIRECT_WRITE_MAX_BYTES_PROP_NAME = "verbs4j.tcp.direct.write.max.bytes";
    /** Default: 1 MiB. */
    public static final String DIRECT_WRITE_MAX_BYTES_DEFAULT = Integer.toString(1 << 20);

    /**
     * Payload bytes still to come above which the receiver reads them from the socket straight into the destination
     * region (epoll only), instead of through Netty's receive buffer; 0 turns this off.
     */
    public static final String DIRECT_READ_THRESHOLD_PROP_NAME = "verbs4j.tcp.direct.read.threshold";
    /** Default threshold: 16 KiB. */
    public static final String DIRECT_READ_THRESHOLD_DEFAULT = "16384";

    /**
     * Polling mode on epoll: interval in microseconds at which an I/O thread reads a socket that no completion-queue
     * poll has read (one-sided targets that do not poll, failure detection).
     */
    public static final String POLL_BACKSTOP_PROP_NAME = "verbs4j.tcp.poll.backstop.us";
    /** Default backstop interval: 200 µs. */
    public static final String POLL_BACKSTOP_DEFAULT = "200";

    /**
     * Event mode: microseconds an I/O thread that has just read a bulk batch (16 KiB or more in one read loop) keeps
     * polling its sockets without blocking before it sleeps in {@code epoll_wait} again ({@link TcpReadSpin}); 0
     * turns this off. The receiver of a WRITE or READ stream whose application does not poll is its I/O thread, and
     * putting it to sleep between batches cost a third of a 1 MiB WRITE stream's bandwidth on loopback (the sender's
     * system call then also pays the wake-up). Small frames never start the spin.
     */
    public static final String IO_READ_SPIN_PROP_NAME = "verbs4j.tcp.io.read.spin.us";
    /** Default: 250 µs. */
    public static final String IO_READ_SPIN_DEFAULT = "250";

    /**
     * Whether a thread polling a completion queue reads the device's sockets itself in event mode (epoll, without
     * TLS), UCX's {@code worker.progress()} model: every poll of a completion queue that finds nothing reads each
     * connection of the device whose socket nobody else is reading (a non-blocking read, the frame decoding and the
     * completions, then the acknowledgements), so a completion reaches a polling thread with no wake-up. The I/O
     * threads still read every socket when data arrives (idle connections, waiters that park, accept, handshakes):
     * whoever comes first reads, one reader per connection at a time ({@code TcpReadOwnership}). Pollers read a
     * connection only within 200 µs of the last sign of input (a post, a frame written, data read): a long wait
     * stops making a system call per poll and leaves the socket to the I/O thread. With direct writes off
     * ({@link #DIRECT_WRITE_PROP_NAME}) the acknowledgements a poller produces still go out through the I/O
     * thread. {@code false}
     * leaves all reading to the I/O threads, as before (for A/B comparison). No effect in polling mode
     * ({@link #MODE_PROP_NAME}{@code =poll}, where pollers always read), on NIO or under TLS (the I/O thread's
     * {@code SslHandler} must see every byte). Frames read this way are counted as
     * {@link TcpCounter#FRAMES_RECEIVED_BY_POLLERS}.
     */
    public static final String POLLER_READS_PROP_NAME = "verbs4j.tcp.poller.reads";
    /** Default: pollers read. */
    public static final String POLLER_READS_DEFAULT = "true";

    /**
     * Event mode with {@link #POLLER_READS_PROP_NAME}: whether a connection whose pollers are reading it often (two
     * reads with data within {@code TcpReadPolicy.POLLER_PATIENCE_NS} of each other) takes the socket out of the
     * I/O thread's epoll read interest until they stop. Without it every arriving frame also wakes
     * the I/O thread, which then waits for the driver lock, finds nothing to read or reads first itself: one
     * wake-up per message competing with the polling threads for the cores. With it the event loop looks once per
     * {@link #POLL_BACKSTOP_PROP_NAME} period instead (a period that doubles, up to 8 times, while the pollers keep
     * reading: each look preempts a spinning thread), reads what the pollers left when they have stopped, and hands
     * the socket back to epoll after {@code TcpReadPolicy.POLLER_PATIENCE_NS} without a poller read.
     * {@code false} keeps epoll reading throughout (for comparison).
     */
    public static final String POLLER_OWNS_READS_PROP_NAME = "verbs4j.tcp.poller.owns.reads";
    /** Default: pollers that read own the socket's reads. */
    public static final String POLLER_OWNS_READS_DEFAULT = "true";

    /**
     * Whether an ACK asked for by frames a polling thread read waits for that thread's next poll (or the event loop's
     * next {@link #POLL_BACKSTOP_PROP_NAME} tick) so that the application's answer carries it, instead of a frame and
     * a system call of its own ({@code TcpAckHold}). Applies where a tick is guaranteed: polling mode, or event mode
     * with {@link #POLLER_OWNS_READS_PROP_NAME}. An 8 B RDMA WRITE ping-pong made four writes per round trip without
     * it (two data frames, two ACKs). ACKs of bulk requests are held only while this side sends requests too.
     */
    public static final String ACK_HOLD_PROP_NAME = "verbs4j.tcp.ack.hold";
    /** Default: ACKs wait one poll for a frame to ride on. */
    public static final String ACK_HOLD_DEFAULT = "true";

    /**
     * Whether connections run over TLS (Netty's {@code SslHandler}, JDK provider), with mutual authentication by
     * certificates: both sides need {@link #TLS_KEYSTORE_PROP_NAME} and {@link #TLS_TRUSTSTORE_PROP_NAME}. TLS turns
     * off the zero-copy paths (direct writes from registered memory, reads straight into it, polling-mode reads).
     */
    public static final String TLS_PROP_NAME = "verbs4j.tcp.tls";
    /** Default: no TLS. */
    public static final String TLS_DEFAULT = "false";
    /** PKCS12 key store holding this process's private key and certificate chain. */
    public static final String TLS_KEYSTORE_PROP_NAME = "verbs4j.tcp.tls.keystore";
    /** Password of the key store (and of its key). */
    public static final String TLS_KEYSTORE_PASSWORD_PROP_NAME = "verbs4j.tcp.tls.keystore.password";
    /** PKCS12 trust store holding the certificates (or the CA) that peers must present. */
    public static final String TLS_TRUSTSTORE_PROP_NAME = "verbs4j.tcp.tls.truststore";
    /** Password of the trust store. */
    public static final String TLS_TRUSTSTORE_PASSWORD_PROP_NAME = "verbs4j.tcp.tls.truststore.password";

    /** Largest connection private data in bytes. */
    public static final int MAX_PRIVATE_DATA_LENGTH = 4096;

    private final String networkInterface;
    private final boolean bindAny;
    private final int ioThreads;
    private final boolean pollingMode;
    private final String transport;
    private final long maxInflightBytes;
    private final int writeHighWaterMark;
    private final long peerTimeoutNs;
    private final long heartbeatIntervalNs;
    private final long handshakeTimeoutNs;
    private final int socketBufferBytes;
    private final String memoryDir;
    private final boolean directWrite;
    private final int directReadThreshold;
    private final long pollBackstopNs;
    private final long ioReadSpinNs;
    private final long directWriteMaxBytes;
    private final boolean pollerReads;
    private final boolean pollerOwnsReads;
    private final boolean ackHold;
    private final ClusterSecret secret;
    private final boolean tls;
    private final String tlsKeyStore;
    private final String tlsKeyStorePassword;
    private final String tlsTrustStore;
    private final String tlsTrustStorePassword;

    private TcpConfiguration(final DeviceContext context)
    {
        networkInterface = context.get(INTERFACE_PROP_NAME, INTERFACE_DEFAULT).trim();
        bindAny = Boolean.parseBoolean(context.get(BIND_ANY_PROP_NAME, BIND_ANY_DEFAULT));
        ioThreads = positiveInt(context, IO_THREADS_PROP_NAME, IO_THREADS_DEFAULT);
        final String mode = context.get(MODE_PROP_NAME, MODE_DEFAULT);
        if (!"event".equals(mode) && !"poll".equals(mode))
        {
            throw new IllegalArgumentException(MODE_PROP_NAME + "=" + mode + "; use event or poll");
        }
        pollingMode = "poll".equals(mode);
        transport = context.get(TRANSPORT_PROP_NAME, TRANSPORT_DEFAULT);
        if (!"auto".equals(transport) && !"epoll".equals(transport) && !"nio".equals(transport))
        {
            throw new IllegalArgumentException(TRANSPORT_PROP_NAME + "=" + transport + "; use auto, epoll or nio");
        }
        maxInflightBytes = positiveInt(context, MAX_INFLIGHT_BYTES_PROP_NAME, MAX_INFLIGHT_BYTES_DEFAULT);
        writeHighWaterMark = positiveInt(context, WRITE_HIGH_WATER_MARK_PROP_NAME, WRITE_HIGH_WATER_MARK_DEFAULT);
        peerTimeoutNs = context.peerTimeoutNs();
        final long heartbeatMs = Long.parseLong(context.get(HEARTBEAT_INTERVAL_PROP_NAME, HEARTBEAT_INTERVAL_DEFAULT));
        heartbeatIntervalNs = heartbeatMs > 0 ? TimeUnit.MILLISECONDS.toNanos(heartbeatMs) :
            Math.max(TimeUnit.MILLISECONDS.toNanos(1), peerTimeoutNs / 4);
        if (heartbeatIntervalNs >= peerTimeoutNs)
        {
            throw new IllegalArgumentException(HEARTBEAT_INTERVAL_PROP_NAME + " must be below the peer timeout (" +
                TimeUnit.NANOSECONDS.toMillis(peerTimeoutNs) + " ms)");
        }
        handshakeTimeoutNs = TimeUnit.MILLISECONDS.toNanos(
            positiveInt(context, HANDSHAKE_TIMEOUT_PROP_NAME, HANDSHAKE_TIMEOUT_DEFAULT));
        socketBufferBytes = Integer.parseInt(context.get(SOCKET_BUFFER_PROP_NAME, SOCKET_BUFFER_DEFAULT));
        memoryDir = context.get(MEMORY_DIR_PROP_NAME, MEMORY_DIR_DEFAULT);
        directWrite = Boolean.parseBoolean(context.get(DIRECT_WRITE_PROP_NAME, DIRECT_WRITE_DEFAULT));
        directWriteMaxBytes = Long.parseLong(context.get(DIRECT_WRITE_MAX_BYTES_PROP_NAME,
            DIRECT_WRITE_MAX_BYTES_DEFAULT));
        if (directWriteMaxBytes < 0)
        {
            throw new IllegalArgumentException(DIRECT_WRITE_MAX_BYTES_PROP_NAME + " must be >= 0");
        }
        directReadThreshold = Integer.parseInt(context.get(DIRECT_READ_THRESHOLD_PROP_NAME,
            DIRECT_READ_THRESHOLD_DEFAULT));
        pollBackstopNs = TimeUnit.MICROSECONDS.toNanos(
            positiveInt(context, POLL_BACKSTOP_PROP_NAME, POLL_BACKSTOP_DEFAULT));
        final long ioReadSpinUs = Long.parseLong(context.get(IO_READ_SPIN_PROP_NAME, IO_READ_SPIN_DEFAULT));
        if (ioReadSpinUs < 0 || ioReadSpinUs > 1_000_000)
        {
            throw new IllegalArgumentException(IO_READ_SPIN_PROP_NAME + " must be between 0 and 1000000");
        }
        ioReadSpinNs = TimeUnit.MICROSECONDS.toNanos(ioReadSpinUs);
        pollerReads = parseBoolean(context, POLLER_READS_PROP_NAME, POLLER_READS_DEFAULT);
        pollerOwnsReads = parseBoolean(context, POLLER_OWNS_READS_PROP_NAME, POLLER_OWNS_READS_DEFAULT);
        ackHold = parseBoolean(context, ACK_HOLD_PROP_NAME, ACK_HOLD_DEFAULT);
        if (directReadThreshold < 0)
        {
            throw new IllegalArgumentException(DIRECT_READ_THRESHOLD_PROP_NAME + " must be >= 0");
        }
        secret = ClusterSecret.of(context);
        tls = Boolean.parseBoolean(context.get(TLS_PROP_NAME, TLS_DEFAULT));
        tlsKeyStore = context.get(TLS_KEYSTORE_PROP_NAME, "");
        tlsKeyStorePassword = context.get(TLS_KEYSTORE_PASSWORD_PROP_NAME, "");
        tlsTrustStore = context.get(TLS_TRUSTSTORE_PROP_NAME, "");
        tlsTrustStorePassword = context.get(TLS_TRUSTSTORE_PASSWORD_PROP_NAME, "");
        if (tls && (tlsKeyStore.isEmpty() || tlsTrustStore.isEmpty()))
        {
            throw new IllegalArgumentException(TLS_PROP_NAME + "=true needs " + TLS_KEYSTORE_PROP_NAME + " and " +
                TLS_TRUSTSTORE_PROP_NAME + " (PKCS12; mutual authentication)");
        }
    }

    /**
     * Reads and validates the settings of a device.
     *
     * @param context the device's concluded context.
     * @return the settings.
     * @throws IllegalArgumentException naming a bad setting.
     */
    public static TcpConfiguration of(final DeviceContext context)
    {
        return new TcpConfiguration(context);
    }

    private static boolean parseBoolean(final DeviceContext context, final String name, final String defaultValue)
    {
        final String text = context.get(name, defaultValue).trim();
        if (!"true".equalsIgnoreCase(text) && !"false".equalsIgnoreCase(text))
        {
            throw new IllegalArgumentException(name + "=" + text + "; use true or false");
        }
        return Boolean.parseBoolean(text);
    }

    private static int positiveInt(final DeviceContext context, final String name, final String defaultValue)
    {
        final String text = context.get(name, defaultValue);
        final int value;
        try
        {
            value = Integer.parseInt(text.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(name + "=" + text + " is not a number", ex);
        }
        if (value <= 0)
        {
            throw new IllegalArgumentException(name + "=" + text + " must be positive");
        }
        return value;
    }

    /** @return the interface name or address, empty when not set. */
    public String networkInterface()
    {
        return networkInterface;
    }

    /** @return whether wildcard endpoints may bind every interface. */
    public boolean bindAny()
    {
        return bindAny;
    }

    /** @return I/O threads. */
    public int ioThreads()
    {
        return ioThreads;
    }

    /** @return true in busy-polling mode. */
    public boolean pollingMode()
    {
        return pollingMode;
    }

    /** @return auto, epoll or nio. */
    public String transport()
    {
        return transport;
    }

    /** @return in-flight cap per connection in bytes. */
    public long maxInflightBytes()
    {
        return maxInflightBytes;
    }

    /** @return outbound high water mark in bytes. */
    public int writeHighWaterMark()
    {
        return writeHighWaterMark;
    }

    /** @return the peer timeout. */
    public long peerTimeoutNs()
    {
        return peerTimeoutNs;
    }

    /** @return the heartbeat interval. */
    public long heartbeatIntervalNs()
    {
        return heartbeatIntervalNs;
    }

    /** @return the handshake timeout. */
    public long handshakeTimeoutNs()
    {
        return handshakeTimeoutNs;
    }

    /** @return socket buffer size, 0 for the kernel default. */
    public int socketBufferBytes()
    {
        return socketBufferBytes;
    }

    /** @return the directory for region files. */
    public String memoryDir()
    {
        return memoryDir;
    }

    /** @return whether posting threads may write straight to the socket. */
    public boolean directWrite()
    {
        return directWrite;
    }

    /** @return whether threads polling a completion queue read the sockets in event mode. */
    public boolean pollerReads()
    {
        return pollerReads;
    }

    /** @return whether reading pollers take the socket out of epoll's read interest (see the property). */
    public boolean pollerOwnsReads()
    {
        return pollerOwnsReads;
    }

    /** @return whether ACKs asked for by frames a poller read may wait one poll for a frame to ride on. */
    public boolean ackHold()
    {
        return ackHold;
    }

    /** @return polling mode's backstop read interval. */
    public long pollBackstopNs()
    {
        return pollBackstopNs;
    }

    /** @return how long an I/O thread keeps polling after a bulk read batch (event mode), ns; 0 for never. */
    public long ioReadSpinNs()
    {
        return ioReadSpinNs;
    }

    /**
     * @return the cluster secret ({@link ClusterSecret#FILE_PROP_NAME}, {@link ClusterSecret#FILE_ENV_NAME},
     * {@link ClusterSecret#SECRET_ENV_NAME}); when configured, every connection must prove it.
     */
    public ClusterSecret secret()
    {
        return secret;
    }

    /** @return whether connections run over TLS. */
    public boolean tls()
    {
        return tls;
    }

    /** @return the PKCS12 key store path, empty if not set. */
    public String tlsKeyStore()
    {
        return tlsKeyStore;
    }

    /** @return the key store password. */
    public String tlsKeyStorePassword()
    {
        return tlsKeyStorePassword;
    }

    /** @return the PKCS12 trust store path, empty if not set. */
    public String tlsTrustStore()
    {
        return tlsTrustStore;
    }

    /** @return the trust store password. */
    public String tlsTrustStorePassword()
    {
        return tlsTrustStorePassword;
    }

    /** @return payload bytes above which they are read straight into the destination; 0 = never. */
    public int directReadThreshold()
    {
        return directReadThreshold;
    }

    /** @return payload bytes above which requests are written by the I/O thread. */
    public long directWriteMaxBytes()
    {
        return directWriteMaxBytes;
    }
}

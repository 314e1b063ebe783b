// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives;

import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The one place where the collectives module reads configuration: each knob is a {@code *_PROP_NAME} system
 * property with a {@code *_DEFAULT}, read by a static accessor. {@link CommunicatorContext} starts from these values
 * and lets code override them per communicator.
 *
 * <table>
 * <caption>Runtime parameters</caption>
 * <tr><th>property</th><th>default</th><th>meaning</th></tr>
 * <tr><td>{@value #CHUNK_BYTES_PROP_NAME}</td><td>262144</td><td>bytes of one inbox slot = largest message of
 * the pipelined algorithms (4 KiB .. 8 MiB, clamped to the devices' maxMessageLength)</td></tr>
 * <tr><td>{@value #SLOTS_PROP_NAME}</td><td>4</td><td>inbox slots per peer (credits); 2 = double buffering</td></tr>
 * <tr><td>{@value #OP_TIMEOUT_PROP_NAME}</td><td>30000</td><td>longest a collective may wait for a peer before
 * it fails with a {@link CollectiveException} (a hung rank)</td></tr>
 * <tr><td>{@value #BOOTSTRAP_TIMEOUT_PROP_NAME}</td><td>30000</td><td>rendezvous and connection timeout</td></tr>
 * <tr><td>{@value #PEER_TIMEOUT_PROP_NAME}</td><td>2000</td><td>device peer timeout: bound on noticing a dead
 * peer process</td></tr>
 * <tr><td>{@value #ALGORITHM_PROP_NAME}</td><td>AUTO</td><td>{@link Algorithm} override</td></tr>
 * <tr><td>{@value #TRANSPORT_PROP_NAME}</td><td>(empty)</td><td>force one provider ({@code shm}, {@code tcp})
 * for every peer instead of choosing per peer</td></tr>
 * <tr><td>{@value #HOST_ADDRESS_PROP_NAME}</td><td>127.0.0.1</td><td>address peers on other hosts use to reach this
 * one (tcp listeners); {@link Communicator#fromEnvironment()} takes the route to the master when it is not set</td>
 * </tr>
 * <tr><td>{@value #CALIBRATE_PROP_NAME}</td><td>true</td><td>measure latency and bandwidth at creation for the
 * algorithm selector (false: use the built-in per-transport table)</td></tr>
 * <tr><td>{@value #MAX_PENDING_PROP_NAME}</td><td>64</td><td>non-blocking handles per communicator</td></tr>
 * <tr><td>{@value #IDLE_SPINS_PROP_NAME}, {@value #IDLE_YIELDS_PROP_NAME}, {@value #IDLE_MIN_PARK_PROP_NAME},
 * {@value #IDLE_MAX_PARK_PROP_NAME}</td><td>200, 2000, 1000 ns, 50000 ns</td><td>back-off of waiting threads: yield
 * long before parking, because ranks often outnumber cores and a parked rank wakes late</td></tr>
 * <tr><td>{@value #DEVICE_PROGRESS_THREAD_PROP_NAME}</td><td>false</td><td>whether the devices the communicator
 * opens run their own progress thread; off, the waiting rank drives progress itself (one thread fewer per rank;
 * shm then detects dead peers by PID only, and a hung peer by the operation timeout)</td></tr>
 * <tr><td>{@value #FLAG_LINKS_PROP_NAME}</td><td>true</td><td>flag links to peers on the same host: operations
 * of at most {@value #FLAG_MAX_BYTES_PROP_NAME} bytes go through direct peer memory (payload and a sequence flag
 * stored into the peer's slots, polled in memory) instead of RDMA WRITE_WITH_IMM and completions</td></tr>
 * <tr><td>{@value #FLAG_MAX_BYTES_PROP_NAME}</td><td>16384</td><td>largest operation (total bytes) on flag links;
 * must be the same on every rank</td></tr>
 * <tr><td>{@value #FLAG_SLOT_BYTES_PROP_NAME}, {@value #FLAG_SLOTS_PROP_NAME}</td><td>8192, 8</td><td>flag-link
 * slot size (a multiple of 8) and slots per peer (a power of two); the same on every rank</td></tr>
 * <tr><td>{@value #PEER_MEMORY_MIN_BYTES_PROP_NAME}</td><td>262144</td><td>smallest AllReduce (bytes) that ranks
 * which all share a host run single-copy, each reading the others' buffers in place, when every rank's buffers
 * come from {@code Communicator.allocate} (otherwise the usual algorithm runs); negative turns it off; the same on
 * every rank</td></tr>
 * </table>
 */
public final class CollectivesConfiguration
{
    /** Inbox slot size in bytes. */
    public static final String CHUNK_BYTES_PROP_NAME = "verbs4j.collectives.chunk.bytes";
    /** Default slot size: 256 KiB (fits the L2 of one core twice over with the reduction operands). */
    public static final int CHUNK_BYTES_DEFAULT = 256 * 1024;
    /** Smallest slot size. */
    public static final int CHUNK_BYTES_MIN = 4096;
    /** Largest slot size (the immediate data carries a 24-bit length). */
    public static final int CHUNK_BYTES_MAX = 8 * 1024 * 1024;

    /** Inbox slots per peer. */
    public static final String SLOTS_PROP_NAME = "verbs4j.collectives.slots";
    /** Default slots per peer. */
    public static final int SLOTS_DEFAULT = 4;
    /** Most slots per peer (the immediate data carries a 6-bit slot number). */
    public static final int SLOTS_MAX = 32;

    /** Operation timeout in milliseconds. */
    public static final String OP_TIMEOUT_PROP_NAME = "verbs4j.collectives.op.timeout.ms";
    /** Default operation timeout. */
    public static final long OP_TIMEOUT_DEFAULT_MS = 600_000;

    /** Bootstrap (rendezvous and connect) timeout in milliseconds. */
    public static final String BOOTSTRAP_TIMEOUT_PROP_NAME = "verbs4j.collectives.bootstrap.timeout.ms";
    /** Default bootstrap timeout, Gloo's 30 s. */
    public static final long BOOTSTRAP_TIMEOUT_DEFAULT_MS = 30_000;

    /** Peer timeout given to the devices the communicator opens, in milliseconds. */
    public static final String PEER_TIMEOUT_PROP_NAME = "verbs4j.collectives.peer.timeout.ms";
    /** Default peer timeout. */
    public static final long PEER_TIMEOUT_DEFAULT_MS = 2_000;

    /** Algorithm override. */
    public static final String ALGORITHM_PROP_NAME = "verbs4j.collectives.algorithm";
    /** Default: choose by the cost model. */
    public static final String ALGORITHM_DEFAULT = "AUTO";

    /** Provider forced for every peer. */
    public static final String TRANSPORT_PROP_NAME = "verbs4j.collectives.transport";
    /** Default: choose per peer. */
    public static final String TRANSPORT_DEFAULT = "";

    /** Address peers use to reach this host. */
    public static final String HOST_ADDRESS_PROP_NAME = "verbs4j.collectives.host.address";
    /** Default host address. */
    public static final String HOST_ADDRESS_DEFAULT = "127.0.0.1";

    /** Whether to use flag links to peers on the same host. */
    public static final String FLAG_LINKS_PROP_NAME = "verbs4j.collectives.flag.enabled";
    /** Default: on. */
    public static final boolean FLAG_LINKS_DEFAULT = true;
    /** Largest operation on flag links, bytes. */
    public static final String FLAG_MAX_BYTES_PROP_NAME = "verbs4j.collectives.flag.max.bytes";
    /** Default largest operation on flag links. */
    public static final long FLAG_MAX_BYTES_DEFAULT = 16 * 1024;
    /** Flag-link slot payload bytes. */
    public static final String FLAG_SLOT_BYTES_PROP_NAME = "verbs4j.collectives.flag.slot.bytes";
    /** Default flag-link slot payload. */
    public static final int FLAG_SLOT_BYTES_DEFAULT = 8192;
    /** Flag-link slots per peer. */
    public static final String FLAG_SLOTS_PROP_NAME = "verbs4j.collectives.flag.slots";
    /** Default flag-link slots per peer. */
    public static final int FLAG_SLOTS_DEFAULT = 8;

    /**
     * Smallest AllReduce, in bytes, that ranks sharing a host run by reading each other's buffers in place (single
     * copy) when every rank's buffers come from {@code Communicator.allocate}; negative turns it off.
     */
    public static final String PEER_MEMORY_MIN_BYTES_PROP_NAME = "verbs4j.collectives.peer.memory.min.bytes";
    /** Default: 256 KiB. */
    public static final long PEER_MEMORY_MIN_BYTES_DEFAULT = 256 * 1024;

    /** Whether to calibrate the cost model at creation. */
    public static final String CALIBRATE_PROP_NAME = "verbs4j.collectives.calibrate";
    /** Default: calibrate. */
    public static final boolean CALIBRATE_DEFAULT = true;

    /** Non-blocking handles per communicator. */
    public static final String MAX_PENDING_PROP_NAME = "verbs4j.collectives.max.pending";
    /** Default number of handles. */
    public static final int MAX_PENDING_DEFAULT = 64;

    /** Spins before yielding when a thread waits. */
    public static final String IDLE_SPINS_PROP_NAME = "verbs4j.collectives.idle.spins";
    /** Default spins. */
    public static final long IDLE_SPINS_DEFAULT = 200;
    /** Yields before parking. */
    public static final String IDLE_YIELDS_PROP_NAME = "verbs4j.collectives.idle.yields";
    /** Default yields. */
    public static final long IDLE_YIELDS_DEFAULT = 2000;
    /** Shortest park, nanoseconds. */
    public static final String IDLE_MIN_PARK_PROP_NAME = "verbs4j.collectives.idle.min.park.ns";
    /** Default shortest park. */
    public static final long IDLE_MIN_PARK_DEFAULT_NS = 1_000;
    /** Longest park, nanoseconds. */
    public static final String IDLE_MAX_PARK_PROP_NAME = "verbs4j.collectives.idle.max.park.ns";
    /** Default longest park. */
    public static final long IDLE_MAX_PARK_DEFAULT_NS = 50_000;

    /** Whether the communicator's devices run a progress thread. */
    public static final String DEVICE_PROGRESS_THREAD_PROP_NAME = "verbs4j.collectives.device.progress.thread";
    /** Default: no, the ranks' own polling drives progress. */
    public static final boolean DEVICE_PROGRESS_THREAD_DEFAULT = false;

    /**
     * After how long (ms) a rank that waits inside an operation logs a warning naming the operation and the rank it
     * waits for, while going on waiting until the operation timeout; 0 turns it off.
     */
    public static final String STALL_WARNING_PROP_NAME = "verbs4j.collectives.stall.warning.ms";
    /** Default of {@link #STALL_WARNING_PROP_NAME}: one minute, as Horovod's stall check. */
    public static final long STALL_WARNING_DEFAULT_MS = 60_000;

    /**
     * Collectives each rank keeps in its history (see {@link Communicator#history()}), logged when the communicator
     * fails; 0 disables it.
     */
    public static final String HISTORY_PROP_NAME = "verbs4j.collectives.history";
    /** Default of {@link #HISTORY_PROP_NAME}. */
    public static final int HISTORY_DEFAULT = 32;

    /**
     * Debug output switch, like {@code NCCL_DEBUG}: {@code INFO} prints at communicator creation the rendezvous, each
     * peer's transport, the flag links and the algorithm table. Read from this system property, else from the
     * environment variable {@link #DEBUG_ENV_NAME}.
     */
    public static final String DEBUG_PROP_NAME = "verbs4j.debug";
    /** Environment variable read when {@link #DEBUG_PROP_NAME} is not set. */
    public static final String DEBUG_ENV_NAME = "VERBS4J_DEBUG";

    /**
     * Smallest buffer, in bytes, that the FLOAT32, FLOAT64, INT32 and INT64 reductions run through the vectorized
     * staged kernels (below it, and for the other types, one element per step); read once per JVM. A very large
     * value switches the staged kernels off, for comparison; results are the same bits either way.
     */
    public static final String STAGED_KERNELS_MIN_BYTES_PROP_NAME = "verbs4j.collectives.staged.kernels.min.bytes";
    /** Default of {@link #STAGED_KERNELS_MIN_BYTES_PROP_NAME}: 1 KiB, where the staged kernels start to gain. */
    public static final long STAGED_KERNELS_MIN_BYTES_DEFAULT = 1024;

    private CollectivesConfiguration()
    {
    }

    /** @return {@link #STAGED_KERNELS_MIN_BYTES_PROP_NAME}, at least 1. */
    public static long stagedKernelsMinBytes()
    {
        return Math.max(1, Long.getLong(STAGED_KERNELS_MIN_BYTES_PROP_NAME, STAGED_KERNELS_MIN_BYTES_DEFAULT));
    }

    /** @return {@link #CHUNK_BYTES_PROP_NAME}. */
    public static int chunkBytes()
    {
        return Integer.getInteger(CHUNK_BYTES_PROP_NAME, CHUNK_BYTES_DEFAULT);
    }

    /** @return {@link #SLOTS_PROP_NAME}. */
    public static int slots()
    {
        return Integer.getInteger(SLOTS_PROP_NAME, SLOTS_DEFAULT);
    }

    /** @return {@link #OP_TIMEOUT_PROP_NAME} in nanoseconds. */
    public static long opTimeoutNs()
    {
        return TimeUnit.MILLISECONDS.toNanos(Long.getLong(OP_TIMEOUT_PROP_NAME, OP_TIMEOUT_DEFAULT_MS));
    }

    /** @return {@link #BOOTSTRAP_TIMEOUT_PROP_NAME} in nanoseconds. */
    public static long bootstrapTimeoutNs()
    {
        return TimeUnit.MILLISECONDS.toNanos(Long.getLong(BOOTSTRAP_TIMEOUT_PROP_NAME, BOOTSTRAP_TIMEOUT_DEFAULT_MS));
    }

    /** @return {@link #PEER_TIMEOUT_PROP_NAME} in nanoseconds. */
    public static long peerTimeoutNs()
    {
        return TimeUnit.MILLISECONDS.toNanos(Long.getLong(PEER_TIMEOUT_PROP_NAME, PEER_TIMEOUT_DEFAULT_MS));
    }

    /** @return {@link #ALGORITHM_PROP_NAME}. */
    public static Algorithm algorithm()
    {
        return Algorithm.parse(System.getProperty(ALGORITHM_PROP_NAME, ALGORITHM_DEFAULT));
    }

    /** @return {@link #TRANSPORT_PROP_NAME}; empty for per-peer choice. */
    public static String transport()
    {
        return System.getProperty(TRANSPORT_PROP_NAME, TRANSPORT_DEFAULT).trim();
    }

    /** @return {@link #HOST_ADDRESS_PROP_NAME}. */
    public static String hostAddress()
    {
        return System.getProperty(HOST_ADDRESS_PROP_NAME, HOST_ADDRESS_DEFAULT);
    }

    /** @return {@link #CALIBRATE_PROP_NAME}. */
    public static boolean calibrate()
    {
        final String value = System.getProperty(CALIBRATE_PROP_NAME);
        return null == value ? CALIBRATE_DEFAULT : Boolean.parseBoolean(value);
    }

    /** @return {@link #FLAG_LINKS_PROP_NAME}. */
    public static boolean flagLinks()
    {
        final String value = System.getProperty(FLAG_LINKS_PROP_NAME);
        return null == value ? FLAG_LINKS_DEFAULT : Boolean.parseBoolean(value);
    }

    /** @return {@link #FLAG_MAX_BYTES_PROP_NAME}. */
    public static long flagMaxBytes()
    {
        return Long.getLong(FLAG_MAX_BYTES_PROP_NAME, FLAG_MAX_BYTES_DEFAULT);
    }

    /** @return {@link #PEER_MEMORY_MIN_BYTES_PROP_NAME}. */
    public static long peerMemoryMinBytes()
    {
        return Long.getLong(PEER_MEMORY_MIN_BYTES_PROP_NAME, PEER_MEMORY_MIN_BYTES_DEFAULT);
    }

    /** @return {@link #FLAG_SLOT_BYTES_PROP_NAME}. */
    public static int flagSlotBytes()
    {
        return Integer.getInteger(FLAG_SLOT_BYTES_PROP_NAME, FLAG_SLOT_BYTES_DEFAULT);
    }

    /** @return {@link #FLAG_SLOTS_PROP_NAME}. */
    public static int flagSlots()
    {
        return Integer.getInteger(FLAG_SLOTS_PROP_NAME, FLAG_SLOTS_DEFAULT);
    }

    /** @return {@link #DEVICE_PROGRESS_THREAD_PROP_NAME}. */
    public static boolean deviceProgressThread()
    {
        final String value = System.getProperty(DEVICE_PROGRESS_THREAD_PROP_NAME);
        return null == value ? DEVICE_PROGRESS_THREAD_DEFAULT : Boolean.parseBoolean(value);
    }

    /** @return {@link #MAX_PENDING_PROP_NAME}. */
    public static int maxPending()
    {
        return Integer.getInteger(MAX_PENDING_PROP_NAME, MAX_PENDING_DEFAULT);
    }

    /** @return {@link #IDLE_SPINS_PROP_NAME}. */
    public static long idleSpins()
    {
        return Long.getLong(IDLE_SPINS_PROP_NAME, IDLE_SPINS_DEFAULT);
    }

    /**
     * @param idleSpins spins of an idle setting ({@link #IDLE_SPINS_PROP_NAME}, {@code CommunicatorContext.idle}).
     * @return true if threads waiting with it busy-poll: they spin and never yield (nothing for an adaptive strategy
     *         to learn, and a provider's own threads beside them get no time).
     */
    public static boolean busyPolls(final long idleSpins)
    {
        return idleSpins >= Integer.MAX_VALUE;
    }

    /** @return {@link #IDLE_YIELDS_PROP_NAME}. */
    public static long idleYields()
    {
        return Long.getLong(IDLE_YIELDS_PROP_NAME, IDLE_YIELDS_DEFAULT);
    }

    /** @return {@link #IDLE_MIN_PARK_PROP_NAME}. */
    public static long idleMinParkNs()
    {
        return Long.getLong(IDLE_MIN_PARK_PROP_NAME, IDLE_MIN_PARK_DEFAULT_NS);
    }

    /** @return {@link #IDLE_MAX_PARK_PROP_NAME}. */
    public static long idleMaxParkNs()
    {
        return Long.getLong(IDLE_MAX_PARK_PROP_NAME, IDLE_MAX_PARK_DEFAULT_NS);
    }

    /** @return {@link #HISTORY_PROP_NAME}. */
    public static int history()
    {
        return Integer.getInteger(HISTORY_PROP_NAME, HISTORY_DEFAULT);
    }

    /**
     * @return whether {@link #DEBUG_PROP_NAME} (or {@link #DEBUG_ENV_NAME}) asks for INFO output (INFO, DEBUG or
     * TRACE, any case).
     */
    public static boolean debugInfo()
    {
        String value = System.getProperty(DEBUG_PROP_NAME);
        if (null == value)
        {
            value = System.getenv(DEBUG_ENV_NAME);
        }
        if (null == value)
        {
            return false;
        }
        final String level = value.trim().toUpperCase(Locale.ROOT);
        return "INFO".equals(level) || "DEBUG".equals(level) || "TRACE".equals(level);
    }

    /** @return {@link #STALL_WARNING_PROP_NAME} in nanoseconds. */
    public static long stallWarningNs()
    {
        return TimeUnit.MILLISECONDS.toNanos(Long.getLong(STALL_WARNING_PROP_NAME, STALL_WARNING_DEFAULT_MS));
    }
}

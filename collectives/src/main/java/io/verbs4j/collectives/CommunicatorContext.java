// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

import io.verbs4j.collectives.rendezvous.AddressExchange;
import io.verbs4j.collectives.rendezvous.PrefixStore;
import io.verbs4j.collectives.rendezvous.RendezvousStore;
import io.verbs4j.collectives.rendezvous.StoreExchange;

/**
 * Settings of one communicator: fluent setters, then {@link #conclude()} validates and freezes (it is called by
 * {@link Communicator#create(CommunicatorContext)}). Defaults come from {@link CollectivesConfiguration}.
 * <pre>{@code
 * Communicator comm = Communicator.create(new CommunicatorContext()
 *     .rank(rank).size(size)
 *     .store(store)                 // or .exchange(sparkAllGather)
 *     .name("job-7/grads"));        // key prefix: several communicators can share one store
 * }</pre>
 * Every rank must use the same name, size, chunk size, slots and algorithm.
 */
public final class CommunicatorContext
{
    private final CommunicatorSettings values = new CommunicatorSettings();
    private boolean concluded;

    /** Creates a context with the defaults of {@link CollectivesConfiguration}. */
    public CommunicatorContext()
    {
    }

    /**
     * @param rank this process's rank in {@code [0, size)}.
     * @return this.
     */
    public CommunicatorContext rank(final int rank)
    {
        checkOpen();
        values.rank = rank;
        return this;
    }

    /**
     * @param size number of ranks.
     * @return this.
     */
    public CommunicatorContext size(final int size)
    {
        checkOpen();
        values.size = size;
        return this;
    }

    /**
     * @param store the rendezvous store shared by all ranks; keys go under {@link #name(String)}.
     * @return this.
     */
    public CommunicatorContext store(final RendezvousStore store)
    {
        checkOpen();
        values.store = Objects.requireNonNull(store, "store");
        return this;
    }

    /**
     * @param exchange an engine's own all-gather (e.g. Spark's {@code BarrierTaskContext.allGather}), used instead of a
     *                 store; it must be dedicated to this communicator.
     * @return this.
     */
    public CommunicatorContext exchange(final AddressExchange exchange)
    {
        checkOpen();
        values.exchange = Objects.requireNonNull(exchange, "exchange");
        return this;
    }

    /**
     * @param name the communicator's name: the store key prefix; distinct names let several communicators (or a
     *             rebuilt one after a failure) share a store.
     * @return this.
     */
    public CommunicatorContext name(final String name)
    {
        checkOpen();
        values.name = Objects.requireNonNull(name, "name");
        return this;
    }

    /**
     * @param chunkBytes inbox slot size; see {@link CollectivesConfiguration#CHUNK_BYTES_PROP_NAME}.
     * @return this.
     */
    public CommunicatorContext chunkBytes(final int chunkBytes)
    {
        checkOpen();
        values.chunkBytes = chunkBytes;
        return this;
    }

    /**
     * @param slots inbox slots per peer; see {@link CollectivesConfiguration#SLOTS_PROP_NAME}.
     * @return this.
     */
    public CommunicatorContext slots(final int slots)
    {
        checkOpen();
        values.slots = slots;
        return this;
    }

    /**
     * @param timeout longest wait of one operation for its peers.
     * @return this.
     */
    public CommunicatorContext opTimeout(final Duration timeout)
    {
        checkOpen();
        values.opTimeoutNs = Objects.requireNonNull(timeout, "timeout").toNanos();
        return this;
    }

    /**
     * @param timeout longest wait of the rendezvous and of each connection.
     * @return this.
     */
    public CommunicatorContext bootstrapTimeout(final Duration timeout)
    {
        checkOpen();
        values.bootstrapTimeoutNs = Objects.requireNonNull(timeout, "timeout").toNanos();
        return this;
    }

    /**
     * @param timeout the devices' bound on noticing a dead peer.
     * @return this.
     */
    public CommunicatorContext peerTimeout(final Duration timeout)
    {
        checkOpen();
        values.peerTimeoutNs = Objects.requireNonNull(timeout, "timeout").toNanos();
        return this;
    }

    /**
     * @param algorithm default algorithm of this communicator ({@link Algorithm#AUTO}: cost model).
     * @return this.
     */
    public CommunicatorContext algorithm(final Algorithm algorithm)
    {
        checkOpen();
        values.algorithm = Objects.requireNonNull(algorithm, "algorithm");
        return this;
    }

    /**
     * @param transport provider name to use for every peer, or empty to choose per peer.
     * @return this.
     */
    public CommunicatorContext transport(final String transport)
    {
        checkOpen();
        values.transport = Objects.requireNonNull(transport, "transport").trim();
        return this;
    }

    /**
     * @param hostAddress address of this host as peers on other hosts see it (tcp).
     * @return this.
     */
    public CommunicatorContext hostAddress(final String hostAddress)
    {
        checkOpen();
        values.hostAddress = Objects.requireNonNull(hostAddress, "hostAddress");
        return this;
    }

    /**
     * @param calibrate whether to measure latency and bandwidth at creation.
     * @return this.
     */
    public CommunicatorContext calibrate(final boolean calibrate)
    {
        checkOpen();
        values.calibrate = calibrate;
        return this;
    }

    /**
     * Flag links to peers on the same host (see {@link CollectivesConfiguration#FLAG_LINKS_PROP_NAME}). Every rank
     * must use the same settings; a difference fails creation with a message naming them.
     *
     * @param enabled   whether to use them.
     * @param maxBytes  largest operation in bytes that runs over them (0 or more).
     * @param slotBytes payload bytes per slot, a multiple of 8, at least 8.
     * @param slots     slots per peer, a power of two.
     * @return this.
     */
    public CommunicatorContext flagLinks(final boolean enabled, final long maxBytes, final int slotBytes,
        final int slots)
    {
        checkOpen();
        values.flagLinks = enabled;
        values.flagMaxBytes = maxBytes;
        values.flagSlotBytes = slotBytes;
        values.flagSlots = slots;
        return this;
    }

    /** @return whether flag links are on. */
    public boolean flagLinks()
    {
        return values.flagLinks;
    }

    /** @return largest operation on flag links, bytes. */
    public long flagMaxBytes()
    {
        return values.flagMaxBytes;
    }

    /** @return flag-link slot payload bytes. */
    public int flagSlotBytes()
    {
        return values.flagSlotBytes;
    }

    /** @return flag-link slots per peer. */
    public int flagSlots()
    {
        return values.flagSlots;
    }

    /**
     * Single-copy AllReduce among ranks that all share a host ({@code PeerMemoryAllReduce}): each rank reduces its
     * slice reading every rank's send buffer in place and copies the other slices from their owners' receive
     * buffers, with no inbox in between. It runs for calls with {@link Algorithm#AUTO} of at least this many bytes
     * whose buffers all come from {@link Communicator#allocate} (other calls run the usual algorithm); it needs flag
     * links to every peer. Must be the same on every rank.
     *
     * @param minBytes smallest call in bytes, or negative for never (default
     *                 {@value CollectivesConfiguration#PEER_MEMORY_MIN_BYTES_PROP_NAME}, 256 KiB).
     * @return this.
     */
    public CommunicatorContext peerMemoryMinBytes(final long minBytes)
    {
        checkOpen();
        values.peerMemoryMinBytes = minBytes;
        return this;
    }

    /** @return smallest single-copy AllReduce in bytes, negative for never. */
    public long peerMemoryMinBytes()
    {
        return values.peerMemoryMinBytes;
    }

    /**
     * @param deviceProgressThread whether the devices the communicator opens run a progress thread.
     * @return this.
     */
    public CommunicatorContext deviceProgressThread(final boolean deviceProgressThread)
    {
        checkOpen();
        values.deviceProgressThread = deviceProgressThread;
        return this;
    }

    /**
     * @param after how long a rank waiting inside an operation logs which operation and which rank it waits for
     *              (once per operation; it goes on waiting until the operation timeout); zero turns it off.
     * @return this.
     */
    public CommunicatorContext stallWarning(final Duration after)
    {
        checkOpen();
        values.stallWarningNs = after.toNanos();
        return this;
    }

    /** @return the stall warning threshold in nanoseconds (0: off). */
    public long stallWarningNs()
    {
        return values.stallWarningNs;
    }

    /**
     * @param history collectives each rank keeps in its history ({@link Communicator#history()}), logged with a
     *                failure; 0 turns the history off.
     * @return this.
     */
    public CommunicatorContext history(final int history)
    {
        checkOpen();
        values.history = history;
        return this;
    }

    /** @return operations kept in the history. */
    public int history()
    {
        return values.history;
    }

    /**
     * @param debugInfo whether creation prints how the ranks were connected (as {@code VERBS4J_DEBUG=INFO} does).
     * @return this.
     */
    public CommunicatorContext debugInfo(final boolean debugInfo)
    {
        checkOpen();
        values.debugInfo = debugInfo;
        return this;
    }

    /** @return whether creation prints how the ranks were connected. */
    public boolean debugInfo()
    {
        return values.debugInfo;
    }

    /**
     * @param maxPending number of non-blocking handles (operations issued and not yet awaited).
     * @return this.
     */
    public CommunicatorContext maxPending(final int maxPending)
    {
        checkOpen();
        values.maxPending = maxPending;
        return this;
    }

    /**
     * Back-off of threads waiting for peers (Agrona {@code BackoffIdleStrategy}). With {@code spins} of
     * {@link Integer#MAX_VALUE} or more the threads busy-poll (spin and never yield); the tcp devices' mode stays
     * whatever {@code verbs4j.tcp.mode} says, as their polling threads read the sockets in either mode.
     *
     * @param spins      spins before yielding.
     * @param yields     yields before parking.
     * @param minParkNs  first park.
     * @param maxParkNs  longest park.
     * @return this.
     */
    public CommunicatorContext idle(final long spins, final long yields, final long minParkNs, final long maxParkNs)
    {
        checkOpen();
        values.idleSpins = spins;
        values.idleYields = yields;
        values.idleMinParkNs = minParkNs;
        values.idleMaxParkNs = maxParkNs;
        return this;
    }

    /**
     * @param name  a device property (see the providers' RUNTIME PARAMETERS).
     * @param value its value.
     * @return this.
     */
    public CommunicatorContext deviceProperty(final String name, final String value)
    {
        checkOpen();
        values.deviceProperties.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
        return this;
    }

    /**
     * Validates and freezes.
     *
     * @return this.
     * @throws IllegalArgumentException naming the bad setting.
     */
    public CommunicatorContext conclude()
    {
        if (concluded)
        {
            return this;
        }
        values.check();
        concluded = true;
        return this;
    }

    /** @return the address exchange for bootstrap: the given one, or one over the store under the name. */
    AddressExchange newExchange()
    {
        return null != values.exchange ? values.exchange :
            new StoreExchange(new PrefixStore("verbs4j-comm/" + values.name, values.store));
    }

    /** @return rank. */
    public int rank()
    {
        return values.rank;
    }

    /** @return size. */
    public int size()
    {
        return values.size;
    }

    /** @return the store, or null when an exchange was given. */
    public RendezvousStore store()
    {
        return values.store;
    }

    /** @return name. */
    public String name()
    {
        return values.name;
    }

    /** @return slot size. */
    public int chunkBytes()
    {
        return values.chunkBytes;
    }

    /** @return slots per peer. */
    public int slots()
    {
        return values.slots;
    }

    /** @return operation timeout. */
    public long opTimeoutNs()
    {
        return values.opTimeoutNs;
    }

    /** @return bootstrap timeout. */
    public long bootstrapTimeoutNs()
    {
        return values.bootstrapTimeoutNs;
    }

    /** @return device peer timeout. */
    public long peerTimeoutNs()
    {
        return values.peerTimeoutNs;
    }

    /** @return default algorithm. */
    public Algorithm algorithm()
    {
        return values.algorithm;
    }

    /** @return forced transport or empty. */
    public String transport()
    {
        return values.transport;
    }

    /** @return host address. */
    public String hostAddress()
    {
        return values.hostAddress;
    }

    /** @return whether to calibrate. */
    public boolean calibrate()
    {
        return values.calibrate;
    }

    /** @return whether devices run a progress thread. */
    public boolean deviceProgressThread()
    {
        return values.deviceProgressThread;
    }

    /** @return number of handles. */
    public int maxPending()
    {
        return values.maxPending;
    }

    /** @return idle spins. */
    public long idleSpins()
    {
        return values.idleSpins;
    }

    /** @return idle yields. */
    public long idleYields()
    {
        return values.idleYields;
    }

    /** @return first park. */
    public long idleMinParkNs()
    {
        return values.idleMinParkNs;
    }

    /** @return longest park. */
    public long idleMaxParkNs()
    {
        return values.idleMaxParkNs;
    }

    /** @return device properties (read-only view). */
    public Map<String, String> deviceProperties()
    {
        return java.util.Collections.unmodifiableMap(values.deviceProperties);
    }

    /**
     * A copy with another rank, size and name over the same store (for {@link Communicator#shrink}).
     *
     * @param newRank rank.
     * @param newSize size.
     * @param newName name (the store key prefix).
     * @return a fresh, unconcluded context.
     */
    CommunicatorContext deriveOnStore(final int newRank, final int newSize, final String newName)
    {
        final CommunicatorContext copy = derive(newRank, newSize, null, newName);
        copy.values.store = values.store;
        return copy;
    }

    /**
     * A copy with another rank, size and exchange (for {@link Communicator#split}).
     *
     * @param newRank     rank.
     * @param newSize     size.
     * @param newExchange exchange.
     * @param newName     name.
     * @return a fresh, unconcluded context.
     */
    CommunicatorContext derive(final int newRank, final int newSize, final AddressExchange newExchange,
        final String newName)
    {
        final CommunicatorContext copy = new CommunicatorContext();
        values.copyTo(copy.values, newRank, newSize, newExchange, newName);
        return copy;
    }

    private void checkOpen()
    {
        if (concluded)
        {
            throw new IllegalStateException("CommunicatorContext is concluded (a communicator was created with it)");
        }
    }
}

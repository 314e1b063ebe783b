// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives;

import java.util.HashMap;
import java.util.Map;

import io.verbs4j.collectives.rendezvous.AddressExchange;
import io.verbs4j.collectives.rendezvous.RendezvousStore;

/**
 * The values behind a {@link CommunicatorContext}: each setting with its default from
 * {@link CollectivesConfiguration}, the rules a concluded context must satisfy ({@link #check()}), and the copy a
 * split or shrink starts from ({@link #copyTo}). The context is the public, fluent face that writes them and
 * freezes them; it is the only user.
 */
final class CommunicatorSettings
{
    int rank = -1;
    int size = -1;
    RendezvousStore store;
    AddressExchange exchange;
    String name = "default";
    int chunkBytes = CollectivesConfiguration.chunkBytes();
    int slots = CollectivesConfiguration.slots();
    long opTimeoutNs = CollectivesConfiguration.opTimeoutNs();
    long bootstrapTimeoutNs = CollectivesConfiguration.bootstrapTimeoutNs();
    long peerTimeoutNs = CollectivesConfiguration.peerTimeoutNs();
    Algorithm algorithm = CollectivesConfiguration.algorithm();
    String transport = CollectivesConfiguration.transport();
    String hostAddress = CollectivesConfiguration.hostAddress();
    boolean calibrate = CollectivesConfiguration.calibrate();
    boolean flagLinks = CollectivesConfiguration.flagLinks();
    long flagMaxBytes = CollectivesConfiguration.flagMaxBytes();
    int flagSlotBytes = CollectivesConfiguration.flagSlotBytes();
    int flagSlots = CollectivesConfiguration.flagSlots();
    long peerMemoryMinBytes = CollectivesConfiguration.peerMemoryMinBytes();
    boolean deviceProgressThread = CollectivesConfiguration.deviceProgressThread();
    int maxPending = CollectivesConfiguration.maxPending();
    int history = CollectivesConfiguration.history();
    long stallWarningNs = CollectivesConfiguration.stallWarningNs();
    boolean debugInfo = CollectivesConfiguration.debugInfo();
    long idleSpins = CollectivesConfiguration.idleSpins();
    long idleYields = CollectivesConfiguration.idleYields();
    long idleMinParkNs = CollectivesConfiguration.idleMinParkNs();
    long idleMaxParkNs = CollectivesConfiguration.idleMaxParkNs();
    final Map<String, String> deviceProperties = new HashMap<>();

    /**
     * The rules of {@link CommunicatorContext#conclude()}.
     *
     * @throws IllegalArgumentException naming the bad setting.
     */
    void check()
    {
        if (size < 1)
        {
            throw new IllegalArgumentException("size must be set and >= 1, was " + size);
        }
        if (rank < 0 || rank >= size)
        {
            throw new IllegalArgumentException("rank must be set and in [0, " + size + "), was " + rank);
        }
        if (null == store && null == exchange)
        {
            throw new IllegalArgumentException("set a rendezvous store or an address exchange");
        }
        if (null != store && null != exchange)
        {
            throw new IllegalArgumentException("set either a rendezvous store or an address exchange, not both");
        }
        if (name.isEmpty())
        {
            throw new IllegalArgumentException("name must not be empty");
        }
        if (flagMaxBytes < 0 || flagSlots < 1 || 0 != (flagSlots & (flagSlots - 1)) || flagSlotBytes < 8 ||
            0 != (flagSlotBytes & 7))
        {
            throw new IllegalArgumentException("flag links need maxBytes >= 0, a power-of-two number of slots and " +
                "a slot size that is a multiple of 8 bytes, got maxBytes " + flagMaxBytes + ", " + flagSlots +
                " slots of " + flagSlotBytes + " bytes (verbs4j.collectives.flag.*)");
        }
        if (chunkBytes < CollectivesConfiguration.CHUNK_BYTES_MIN ||
            chunkBytes > CollectivesConfiguration.CHUNK_BYTES_MAX ||
            0 != (chunkBytes & 7))
        {
            throw new IllegalArgumentException("chunkBytes must be a multiple of 8 in [" +
                CollectivesConfiguration.CHUNK_BYTES_MIN + ", " + CollectivesConfiguration.CHUNK_BYTES_MAX + "], was " +
                chunkBytes);
        }
        if (slots < 2 || slots > CollectivesConfiguration.SLOTS_MAX)
        {
            throw new IllegalArgumentException("slots must be in [2, " + CollectivesConfiguration.SLOTS_MAX +
                "], was " +
                slots);
        }
        if (opTimeoutNs <= 0 || bootstrapTimeoutNs <= 0 || peerTimeoutNs <= 0)
        {
            throw new IllegalArgumentException("timeouts must be positive");
        }
        if (maxPending < 1)
        {
            throw new IllegalArgumentException("maxPending must be >= 1, was " + maxPending);
        }
        if (stallWarningNs < 0)
        {
            throw new IllegalArgumentException("stall warning must be >= 0 (0 turns it off)");
        }
        if (history < 0)
        {
            throw new IllegalArgumentException("history must be >= 0 (0 turns it off), was " + history + " (" +
                CollectivesConfiguration.HISTORY_PROP_NAME + ")");
        }
        if (idleSpins < 0 || idleYields < 0 || idleMinParkNs < 1 || idleMaxParkNs < idleMinParkNs)
        {
            throw new IllegalArgumentException("idle settings need spins, yields >= 0 and 1 <= minPark <= maxPark");
        }
    }

    /**
     * Copies every setting but rank, size, the bootstrap's store or exchange, and name, which are given.
     *
     * @param target      the settings of a fresh context.
     * @param newRank     rank.
     * @param newSize     size.
     * @param newExchange exchange (null: none; the caller may set a store instead).
     * @param newName     name.
     */
    void copyTo(final CommunicatorSettings target, final int newRank, final int newSize,
        final AddressExchange newExchange, final String newName)
    {
        target.rank = newRank;
        target.size = newSize;
        target.exchange = newExchange;
        target.name = newName;
        target.chunkBytes = chunkBytes;
        target.slots = slots;
        target.opTimeoutNs = opTimeoutNs;
        target.bootstrapTimeoutNs = bootstrapTimeoutNs;
        target.peerTimeoutNs = peerTimeoutNs;
        target.algorithm = algorithm;
        target.transport = transport;
        target.hostAddress = hostAddress;
        target.calibrate = calibrate;
        target.flagLinks = flagLinks;
        target.flagMaxBytes = flagMaxBytes;
        target.flagSlotBytes = flagSlotBytes;
        target.flagSlots = flagSlots;
        target.peerMemoryMinBytes = peerMemoryMinBytes;
        target.deviceProgressThread = deviceProgressThread;
        target.maxPending = maxPending;
        target.history = history;
        target.stallWarningNs = stallWarningNs;
        target.debugInfo = debugInfo;
        target.idleSpins = idleSpins;
        target.idleYields = idleYields;
        target.idleMinParkNs = idleMinParkNs;
        target.idleMaxParkNs = idleMaxParkNs;
        target.deviceProperties.putAll(deviceProperties);
    }
}

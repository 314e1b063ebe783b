// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.bootstrap;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.verbs4j.Capabilities;
import io.verbs4j.CompletionQueue;
import io.verbs4j.ConnectionRequest;
import io.verbs4j.Device;
import io.verbs4j.Listener;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.QueuePair;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.Verbs;
import io.verbs4j.collectives.CollectiveException;
import io.verbs4j.collectives.link.Handshake;
import io.verbs4j.collectives.link.VerbsLinks;
import io.verbs4j.collectives.link.VerbsPeerLink;
import io.verbs4j.collectives.rendezvous.AddressExchange;
import io.verbs4j.config.DeviceContext;
import io.verbs4j.spi.HostIdentity;
import io.verbs4j.spi.TransportProvider;

/**
 * Builds the full mesh of a communicator:
 * <ol>
 *   <li>exchange 1: every rank publishes its host id, the providers it has, and a random number (rank 0's becomes
 *       the communicator id checked in every handshake);</li>
 *   <li>per peer, the highest-priority provider both have whose {@code canReach(lowerRank's host, higherRank's host)}
 *       holds (shm on one host, tcp across), or the forced one; each rank opens one device per provider it needs,
 *       with one protection domain and one completion queue, and listens on {@code listenEndpoint};</li>
 *   <li>exchange 2: the listener endpoints;</li>
 *   <li>the lower rank of each pair connects, the higher accepts (a thread per listener accepts while this thread
 *       connects); the private data is a {@link Handshake}: rank, size, slot geometry, inbox address and rkey.</li>
 * </ol>
 * Exactly two exchanges, always, so a split communicator can run its bootstrap over its parent.
 */
public final class Bootstrap
{
    private static final AtomicInteger LISTENER_NAMES = new AtomicInteger();
    private static final int SEND_DEPTH = 64;
    private static final int INLINE_LIMIT = 1024;

    /** What the caller configures. */
    public static final class Settings
    {
        /** This rank. */
        public int rank;
        /** Ranks. */
        public int size;
        /** Slots per peer. */
        public int slots;
        /** Slot bytes. */
        public int slotBytes;
        /** Forced provider or empty. */
        public String transport = "";
        /** Host address for tcp. */
        public String hostAddress = "127.0.0.1";
        /** Timeout of exchanges and connections. */
        public Duration timeout;
        /** Device peer timeout. */
        public long peerTimeoutNs;
        /** Whether devices run a progress thread. */
        public boolean progressThread;
        /** Device properties. */
        public Map<String, String> deviceProperties = Map.of();
    }

    /** The result. */
    public static final class Result
    {
        /** The links. */
        public final VerbsLinks links;
        /** Provider name per rank (null for this rank). */
        public final String[] transports;
        /** Protection domain of the device with the most links (for user buffers and scratch). */
        public final ProtectionDomain primaryPd;

        Result(final VerbsLinks links, final String[] transports, final ProtectionDomain primaryPd)
        {
            this.links = links;
            this.transports = transports;
            this.primaryPd = primaryPd;
        }
    }

    private Bootstrap()
    {
    }

    /**
     * @param settings what to build.
     * @param exchange the all-gather to use.
     * @return the connected links.
     * @throws CollectiveException with reason BOOTSTRAP on any failure (everything opened is closed again).
     */
    public static Result run(final Settings settings, final AddressExchange exchange)
    {
        final int rank = settings.rank;
        final int size = settings.size;
        final List<TransportProvider> providers = usableProviders(settings.transport);

        // exchange 1: host id, providers, nonce
        final StringBuilder names = new StringBuilder();
        for (final TransportProvider provider : providers)
        {
            names.append(names.length() > 0 ? "," : "").append(provider.name());
        }
        final long nonce = new SecureRandom().nextLong();
        final byte[][] hello = exchange.allGather(rank, size,
            (HostIdentity.hostId() + "\n" + names + "\n" + nonce).getBytes(StandardCharsets.UTF_8), settings.timeout);
        final String[] hosts = new String[size];
        final List<List<String>> peerProviders = new ArrayList<>();
        long commId = 0;
        for (int q = 0; q < size; q++)
        {
            final String[] parts = new String(hello[q], StandardCharsets.UTF_8).split("\n", -1);
            if (parts.length != 3)
            {
                throw bootstrapFailure(rank, q, "rank " + q + " sent a malformed bootstrap record", null);
            }
            hosts[q] = parts[0];
            peerProviders.add(Arrays.asList(parts[1].split(",")));
            if (0 == q)
            {
                commId = Long.parseLong(parts[2]);
            }
        }

        // choose a provider per peer
        final String[] choice = new String[size];
        final Map<String, Integer> linksPerProvider = new LinkedHashMap<>();
        for (int q = 0; q < size; q++)
        {
            if (q == rank)
            {
                continue;
            }
            final String lower = hosts[Math.min(q, rank)];
            final String higher = hosts[Math.max(q, rank)];
            for (final TransportProvider provider : providers)
            {
                if (peerProviders.get(q).contains(provider.name()) && provider.canReach(lower, higher))
                {
                    choice[q] = provider.name();
                    break;
                }
            }
            if (null == choice[q])
            {
                throw bootstrapFailure(rank, q, "no transport reaches rank " + q + " (host " + hosts[q] +
                    ", providers " + peerProviders.get(q) + ") from this host (" + hosts[rank] + ", providers " +
                    names + ")", null);
            }
            linksPerProvider.merge(choice[q], 1, Integer::sum);
        }

        final List<VerbsLinks.DeviceSlot> slots = new ArrayList<>();
        final Map<String, VerbsLinks.DeviceSlot> slotByName = new LinkedHashMap<>();
        final Map<String, Listener> listeners = new LinkedHashMap<>();
        VerbsLinks links = null;
        try
        {
            // open devices and listen
            final StringBuilder endpoints = new StringBuilder();
            final String uniqueName = "v4j-" + ProcessHandle.current().pid() + "-" +
                LISTENER_NAMES.incrementAndGet() + "-r" + rank;
            for (final Map.Entry<String, Integer> entry : linksPerProvider.entrySet())
            {
                final String name = entry.getKey();
                final TransportProvider provider = Verbs.provider(name);
                final DeviceContext context = new DeviceContext().peerTimeoutNs(settings.peerTimeoutNs)
                    .progressThread(settings.progressThread);
                settings.deviceProperties.forEach(context::property);
                final Device device = Verbs.open(name, context);
                final ProtectionDomain pd;
                final CompletionQueue cq;
                try
                {
                    final Capabilities caps = device.capabilities();
                    if (settings.slotBytes > caps.maxMessageLength())
                    {
                        throw new IllegalArgumentException("chunk size " + settings.slotBytes + " exceeds the " + name +
                            " device's maxMessageLength " + caps.maxMessageLength());
                    }
                    pd = device.allocateProtectionDomain();
                    final int perLink = Math.min(SEND_DEPTH, caps.maxQueueDepth()) +
                        VerbsPeerLink.recvDepth(settings.slots);
                    cq = device.createCompletionQueue(Math.min(caps.maxCqCapacity(), perLink * entry.getValue()));
                }
                catch (final RuntimeException ex)
                {
                    device.close();
                    throw ex;
                }
                final VerbsLinks.DeviceSlot slot = new VerbsLinks.DeviceSlot(device, pd, cq);
                slots.add(slot);
                slotByName.put(name, slot);
                final Listener listener = device.connectionManager().listen(
                    provider.listenEndpoint(settings.hostAddress, uniqueName));
                listeners.put(name, listener);
                endpoints.append(name).append('=').append(listener.endpoint()).append('\n');
            }

            // exchange 2: endpoints
            final byte[][] all = exchange.allGather(rank, size, endpoints.toString().getBytes(StandardCharsets.UTF_8),
                settings.timeout);

            // links
            links = new VerbsLinks(rank, size, slots);
            String primary = null;
            int most = -1;
            for (final Map.Entry<String, Integer> entry : linksPerProvider.entrySet())
            {
                if (entry.getValue() > most)
                {
                    most = entry.getValue();
                    primary = entry.getKey();
                }
            }
            for (int q = 0; q < size; q++)
            {
                if (q == rank)
                {
                    continue;
                }
                final VerbsLinks.DeviceSlot slot = slotByName.get(choice[q]);
                final Capabilities caps = slot.device().capabilities();
                final int inline = caps.has(Capabilities.INLINE) ? Math.min(INLINE_LIMIT, caps.maxInlineLength()) : 0;
                final QueuePair qp = slot.pd().createQueuePair(new QueuePairConfig(slot.cq())
                    .sendDepth(Math.min(SEND_DEPTH, caps.maxQueueDepth()))
                    .recvDepth(VerbsPeerLink.recvDepth(settings.slots))
                    .maxInlineLength(inline)
                    .rnrRetry(QueuePairConfig.RNR_RETRY_INFINITE));
                final VerbsPeerLink link = new VerbsPeerLink(links, q, slot.pd(), qp, settings.slots,
                    settings.slotBytes, inline);
                links.add(slot, link);
            }

            connectAll(settings, links, choice, all, listeners, commId);
            return new Result(links, choice, null == primary ? null : slotByName.get(primary).pd());
        }
        catch (final CollectiveException ex)
        {
            closeQuietly(links, slots);
            throw ex;
        }
        catch (final RuntimeException ex)
        {
            closeQuietly(links, slots);
            throw bootstrapFailure(rank, -1, ex.getMessage(), ex);
        }
        finally
        {
            for (final Listener listener : listeners.values())
            {
                try
                {
                    listener.close();
                }
                catch (final RuntimeException ignore)
                {
                    // closing a listener of a closed device
                }
            }
        }
    }

    private static void connectAll(final Settings settings, final VerbsLinks links, final String[] choice,
        final byte[][] endpoints, final Map<String, Listener> listeners, final long commId)
    {
        final int rank = settings.rank;
        final int size = settings.size;
        final AtomicReference<Throwable> acceptFailure = new AtomicReference<>();
        final List<Thread> acceptors = new ArrayList<>();
        for (final Map.Entry<String, Listener> entry : listeners.entrySet())
        {
            int expected = 0;
            for (int q = 0; q < rank; q++)
            {
                if (entry.getKey().equals(choice[q]))
                {
                    expected++;
                }
            }
            if (0 == expected)
            {
                continue;
            }
            final int count = expected;
            final Thread acceptor = new Thread(() ->
            {
                try
                {
                    accept(settings, links, entry.getValue(), count, commId);
                }
                catch (final Throwable t)
                {
                    acceptFailure.compareAndSet(null, t);
                }
            }, "verbs4j-bootstrap-accept-r" + rank);
            acceptor.setDaemon(true);
            acceptor.start();
            acceptors.add(acceptor);
        }

        Throwable connectFailure = null;
        try
        {
            for (int q = rank + 1; q < size; q++)
            {
                final VerbsPeerLink link = links.verbsLink(q);
                link.prepare();
                final String endpoint = endpointOf(endpoints[q], choice[q]);
                if (null == endpoint)
                {
                    throw new IllegalStateException("rank " + q + " does not listen on " + choice[q]);
                }
                final byte[] reply = link.queuePair().protectionDomain().device().connectionManager().connect(
                    link.queuePair(), endpoint, link.handshake(rank, size, commId).encode(), settings.timeout);
                link.connected(check(Handshake.decode(reply), q, settings, commId));
            }
        }
        catch (final RuntimeException ex)
        {
            connectFailure = ex;
        }
        for (final Thread acceptor : acceptors)
        {
            try
            {
                acceptor.join(settings.timeout.toMillis() + 1000);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw bootstrapFailure(rank, -1, "interrupted while accepting connections", ex);
            }
        }
        final Throwable failure = null != connectFailure ? connectFailure : acceptFailure.get();
        if (null != failure)
        {
            throw bootstrapFailure(rank, -1, "connecting the mesh failed: " + failure.getMessage(), failure);
        }
        for (final Thread acceptor : acceptors)
        {
            if (acceptor.isAlive())
            {
                throw bootstrapFailure(rank, -1, "lower ranks did not connect within " + settings.timeout, null);
            }
        }
    }

    private static void accept(final Settings settings, final VerbsLinks links, final Listener listener,
        final int expected, final long commId)
    {
        final long deadline = System.nanoTime() + settings.timeout.toNanos();
        int accepted = 0;
        while (accepted < expected)
        {
            final long remaining = deadline - System.nanoTime();
            if (remaining <= 0)
            {
                throw new IllegalStateException("only " + accepted + " of " + expected + " lower ranks connected to " +
                    listener.endpoint() + " within " + settings.timeout);
            }
            final ConnectionRequest request = listener.accept(Duration.ofNanos(remaining));
            if (null == request)
            {
                continue;
            }
            final Handshake hs;
            try
            {
                hs = Handshake.decode(request.privateData());
            }
            catch (final IllegalArgumentException ex)
            {
                request.reject(ex.getMessage());
                continue;
            }
            if (hs.commId != commId || hs.rank < 0 || hs.rank >= settings.rank || null == links.verbsLink(hs.rank))
            {
                request.reject("not a connection of this communicator");
                continue;
            }
            final VerbsPeerLink link = links.verbsLink(hs.rank);
            link.prepare();
            request.accept(link.queuePair(), link.handshake(settings.rank, settings.size, commId).encode());
            link.connected(check(hs, hs.rank, settings, commId));
            accepted++;
        }
    }

    private static Handshake check(final Handshake hs, final int expectedRank, final Settings settings,
        final long commId)
    {
        if (hs.rank != expectedRank || hs.size != settings.size || hs.slots != settings.slots ||
            hs.slotBytes != settings.slotBytes || hs.commId != commId)
        {
            throw new IllegalStateException("rank " + expectedRank + " answered with rank " + hs.rank + ", size " +
                hs.size + ", slots " + hs.slots + ", slot bytes " + hs.slotBytes + "; this rank has size " +
                settings.size + ", slots " + settings.slots + ", slot bytes " + settings.slotBytes +
                " (all ranks must use the same chunk size and slots)");
        }
        return hs;
    }

    private static String endpointOf(final byte[] record, final String provider)
    {
        for (final String line : new String(record, StandardCharsets.UTF_8).split("\n"))
        {
            final int eq = line.indexOf('=');
            if (eq > 0 && line.substring(0, eq).equals(provider))
            {
                return line.substring(eq + 1);
            }
        }
        return null;
    }

    private static List<TransportProvider> usableProviders(final String forced)
    {
        final List<TransportProvider> usable = new ArrayList<>();
        final List<String> all = new ArrayList<>();
        for (final TransportProvider provider : Verbs.providers())
        {
            all.add(provider.name());
            if ((forced.isEmpty() || forced.equals(provider.name())) && null == provider.unavailableReason())
            {
                usable.add(provider);
            }
        }
        if (usable.isEmpty())
        {
            throw new CollectiveException(CollectiveException.Reason.BOOTSTRAP, -1, -1, forced.isEmpty() ?
                "no usable verbs4j provider on the class path (installed: " + all + "); add io.verbs4j:verbs4j-shm " +
                "and/or io.verbs4j:verbs4j-tcp" :
                "forced transport '" + forced + "' is not installed or not usable here (installed: " + all + ")", null);
        }
        return usable;
    }

    private static CollectiveException bootstrapFailure(final int rank, final int peer, final String why,
        final Throwable cause)
    {
        return new CollectiveException(CollectiveException.Reason.BOOTSTRAP, rank, peer,
            "rank " + rank + ": communicator bootstrap failed: " + why, cause);
    }

    private static void closeQuietly(final VerbsLinks links, final List<VerbsLinks.DeviceSlot> slots)
    {
        try
        {
            if (null != links)
            {
                links.close();
                return;
            }
        }
        catch (final RuntimeException ignore)
        {
            // best effort
        }
        for (final VerbsLinks.DeviceSlot slot : slots)
        {
            try
            {
                slot.device().close();
            }
            catch (final RuntimeException ignore)
            {
                // best effort
            }
        }
    }
}

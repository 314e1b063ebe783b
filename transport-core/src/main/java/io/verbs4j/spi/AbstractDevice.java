// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.verbs4j.Capabilities;
import io.verbs4j.CompletionQueue;
import io.verbs4j.Device;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.config.DeviceContext;
import io.verbs4j.config.ThreadingMode;

/**
 * The shared part of a device: capabilities, ownership of domains and completion queues, queue-pair numbering and
 * close. A provider supplies its protection domains, its connection manager and the progress that polling drives.
 */
public abstract class AbstractDevice implements Device
{
    private final String name;
    private final Capabilities capabilities;
    private final DeviceContext context;
    private final Set<AbstractProtectionDomain> domains = ConcurrentHashMap.newKeySet();
    private final Set<BaseCompletionQueue> completionQueues = ConcurrentHashMap.newKeySet();
    private final AtomicInteger qpNumbers = new AtomicInteger();
    private volatile boolean closed;

    /**
     * @param name         provider name.
     * @param capabilities what the device supports.
     * @param context      concluded settings.
     */
    protected AbstractDevice(final String name, final Capabilities capabilities, final DeviceContext context)
    {
        this.name = name;
        this.capabilities = capabilities;
        this.context = context;
        // A peer's death is often the first thing a process logs: the logging backend's start-up must not delay it.
        LogWarmUp.startOnce();
    }

    /** {@inheritDoc} */
    public final String name()
    {
        return name;
    }

    /** {@inheritDoc} */
    public final Capabilities capabilities()
    {
        return capabilities;
    }

    /**
     * Whether this device's queues and completion queues run single-threaded: the context asks for
     * {@link ThreadingMode#SINGLE_THREAD} and the provider honours it ({@link #supportsSingleThread()}). Their
     * try-locks and publications are then plain loads and release stores, with no locked instruction.
     *
     * @return true for a device driven by one thread at a time.
     */
    public final boolean singleThreaded()
    {
        return ThreadingMode.SINGLE_THREAD == context.threadingMode() && supportsSingleThread();
    }

    /**
     * Whether this provider runs every part of a device on the application's thread when asked for
     * {@link ThreadingMode#SINGLE_THREAD}: no thread of its own touches a queue or a completion queue. A provider that
     * keeps threads of its own (tcp's I/O threads) answers false and treats the mode as {@link ThreadingMode#SHARED}.
     * Default: false. Must not depend on the subclass's state (it is asked from the constructor on).
     *
     * @return true if the provider honours the mode.
     */
    protected boolean supportsSingleThread()
    {
        return false;
    }

    /** @return the settings the device was opened with. */
    public final DeviceContext context()
    {
        return context;
    }

    /** {@inheritDoc} */
    public final ProtectionDomain allocateProtectionDomain()
    {
        checkOpen();
        final AbstractProtectionDomain pd = newProtectionDomain();
        domains.add(pd);
        return pd;
    }

    /** {@inheritDoc} */
    public final CompletionQueue createCompletionQueue(final int capacity)
    {
        checkOpen();
        if (capacity < 1 || capacity > capabilities.maxCqCapacity())
        {
            throw new IllegalArgumentException("completion queue capacity " + capacity + " is out of range [1, " +
                capabilities.maxCqCapacity() + "]");
        }
        // DEDICATED: the device's own threads are its only drivers; a poll only takes what they completed.
        final Progress polling = ThreadingMode.DEDICATED == context.threadingMode() ? Progress.NONE : progress();
        final BaseCompletionQueue cq = new BaseCompletionQueue(
            this, capacity, polling, context.newIdleStrategy(), singleThreaded());
        completionQueues.add(cq);
        return cq;
    }

    /** {@inheritDoc} */
    public final void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        for (final AbstractProtectionDomain pd : new ArrayList<>(domains))
        {
            pd.close();
        }
        for (final BaseCompletionQueue cq : completionQueues)
        {
            cq.close();
        }
        completionQueues.clear();
        onClose();
    }

    /** @return true once closed. */
    public final boolean isClosed()
    {
        return closed;
    }

    /** @return the open domains (snapshot). */
    public final List<AbstractProtectionDomain> domains()
    {
        return new ArrayList<>(domains);
    }

    /**
     * @param cq a completion queue given in a queue-pair config.
     * @return it, as this device's implementation.
     * @throws IllegalArgumentException if it belongs to another device or is closed.
     */
    final BaseCompletionQueue ownCq(final CompletionQueue cq)
    {
        if (!(cq instanceof BaseCompletionQueue) || this != ((BaseCompletionQueue)cq).owner())
        {
            throw new IllegalArgumentException("the completion queue belongs to another device; create it with " +
                "this device's createCompletionQueue");
        }
        if (((BaseCompletionQueue)cq).isClosed())
        {
            throw new IllegalArgumentException("the completion queue is closed");
        }
        return (BaseCompletionQueue)cq;
    }

    final int nextQpNumber()
    {
        return qpNumbers.incrementAndGet();
    }

    final void removeDomain(final AbstractProtectionDomain pd)
    {
        domains.remove(pd);
    }

    /** @return a new protection domain of the provider. */
    protected abstract AbstractProtectionDomain newProtectionDomain();

    /** @return the progress that completion-queue polling drives. */
    protected abstract Progress progress();

    /** Called once on close, after every domain and CQ was closed: stop threads, release the rest. */
    protected abstract void onClose();

    private void checkOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("device '" + name + "' is closed");
        }
    }
}

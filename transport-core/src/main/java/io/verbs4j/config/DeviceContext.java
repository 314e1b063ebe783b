// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.config;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

import org.agrona.concurrent.IdleStrategy;

/**
 * Settings for opening a device: fluent setters, then {@link #conclude()} validates and freezes. Defaults come from
 * {@link CoreConfiguration}. Provider-specific settings travel as string properties (for example
 * {@code verbs4j.tcp.interface}); a provider reads them with {@link #get(String, String)}, which falls back
 * to the system property of the same name.
 */
public final class DeviceContext
{
    private String idleStrategyName = CoreConfiguration.idleStrategyName();
    private Supplier<IdleStrategy> idleStrategySupplier;
    private long peerTimeoutNs = CoreConfiguration.peerTimeoutNs();
    private ThreadingMode threadingMode = CoreConfiguration.threadingMode();
    private final Map<String, String> properties = new HashMap<>();
    private boolean concluded;

    /**
     * @param name idle strategy name: backoff, spin, yield, sleep or noop.
     * @return this.
     */
    public DeviceContext idleStrategy(final String name)
    {
        Objects.requireNonNull(name, "name");
        checkOpen();
        CoreConfiguration.newIdleStrategy(name);
        this.idleStrategyName = name;
        this.idleStrategySupplier = null;
        return this;
    }

    /**
     * @param supplier makes a new idle strategy for each agent or waiting thread.
     * @return this.
     */
    public DeviceContext idleStrategy(final Supplier<IdleStrategy> supplier)
    {
        checkOpen();
        this.idleStrategySupplier = Objects.requireNonNull(supplier, "supplier");
        return this;
    }

    /**
     * @param peerTimeoutNs bound on noticing a dead or hung peer.
     * @return this.
     */
    public DeviceContext peerTimeoutNs(final long peerTimeoutNs)
    {
        checkOpen();
        this.peerTimeoutNs = peerTimeoutNs;
        return this;
    }

    /**
     * The older switch of {@link #threadingMode(ThreadingMode)}: {@code false} is {@link ThreadingMode#INVOKER},
     * or leaves {@link ThreadingMode#SINGLE_THREAD} as it is; {@code true} is {@link ThreadingMode#SHARED}, or leaves
     * {@link ThreadingMode#DEDICATED} as it is.
     *
     * @param progressThread whether the device runs its own progress agent.
     * @return this.
     */
    public DeviceContext progressThread(final boolean progressThread)
    {
        checkOpen();
        if (progressThread != threadingMode.progressThread())
        {
            this.threadingMode = progressThread ? ThreadingMode.SHARED : ThreadingMode.INVOKER;
        }
        return this;
    }

    /**
     * @param mode who drives the device's progress ({@link ThreadingMode}).
     * @return this.
     */
    public DeviceContext threadingMode(final ThreadingMode mode)
    {
        checkOpen();
        this.threadingMode = Objects.requireNonNull(mode, "mode");
        return this;
    }

    /**
     * @param name  a provider property name.
     * @param value its value.
     * @return this.
     */
    public DeviceContext property(final String name, final String value)
    {
        checkOpen();
        properties.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
        return this;
    }

    /**
     * Validates and freezes the context.
     *
     * @return this.
     * @throws IllegalArgumentException naming a bad setting.
     */
    public DeviceContext conclude()
    {
        if (!concluded)
        {
            if (peerTimeoutNs <= 0)
            {
                throw new IllegalArgumentException("peerTimeoutNs must be positive: " + peerTimeoutNs);
            }
            if (null == idleStrategySupplier)
            {
                final String name = idleStrategyName;
                CoreConfiguration.newIdleStrategy(name);
                idleStrategySupplier = () -> CoreConfiguration.newIdleStrategy(name);
            }
            concluded = true;
        }
        return this;
    }

    /** @return a new idle strategy. */
    public IdleStrategy newIdleStrategy()
    {
        conclude();
        return idleStrategySupplier.get();
    }

    /** @return the peer timeout. */
    public long peerTimeoutNs()
    {
        return peerTimeoutNs;
    }

    /** @return whether a progress thread runs ({@link ThreadingMode#progressThread()}). */
    public boolean progressThread()
    {
        return threadingMode.progressThread();
    }

    /** @return who drives the device's progress. */
    public ThreadingMode threadingMode()
    {
        return threadingMode;
    }

    /**
     * @param name         property name.
     * @param defaultValue used when neither the context nor the system properties have it.
     * @return the value.
     */
    public String get(final String name, final String defaultValue)
    {
        Objects.requireNonNull(name, "name");
        final String value = properties.get(name);
        return null != value ? value : System.getProperty(name, defaultValue);
    }

    private void checkOpen()
    {
        if (concluded)
        {
            throw new IllegalStateException("DeviceContext is concluded (a device was opened with it); make a new one");
        }
    }
}

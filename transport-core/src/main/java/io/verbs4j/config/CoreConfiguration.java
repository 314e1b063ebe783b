// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.config;

import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;

/**
 * The one place where transport-core reads configuration: each knob is a {@code *_PROP_NAME} system property with
 * a {@code *_DEFAULT}. {@link DeviceContext} starts from these values; setters on it override them per device.
 * Providers keep their own knobs in their own {@code *Configuration} class, in the same style.
 */
public final class CoreConfiguration
{
    /**
     * Idle strategy of progress agents and blocking waits: {@code backoff} (spin, then yield, then park: the
     * default, because ranks often outnumber cores), {@code spin} (lowest latency, burns a core), {@code yield},
     * {@code sleep} or {@code noop}.
     */
    public static final String IDLE_STRATEGY_PROP_NAME = "verbs4j.idle.strategy";
    /** Default idle strategy. */
    public static final String IDLE_STRATEGY_DEFAULT = "backoff";

    /** Longest time a dead or hung peer goes unnoticed before its queue pairs move to ERROR, in milliseconds. */
    public static final String PEER_TIMEOUT_PROP_NAME = "verbs4j.peer.timeout.ms";
    /** Default peer timeout: half a second. */
    public static final long PEER_TIMEOUT_DEFAULT_MS = 500;

    /**
     * Who drives a device's progress: {@code shared} (the default), {@code dedicated} or {@code invoker}
     * ({@link ThreadingMode}). Unset, {@link #PROGRESS_THREAD_PROP_NAME}{@code =false} means {@code invoker}.
     */
    public static final String THREADING_MODE_PROP_NAME = "verbs4j.threading.mode";

    /**
     * Whether a device runs its own progress thread (an Agrona agent); without it, progress is made by polling. The
     * older spelling of {@link #THREADING_MODE_PROP_NAME}: {@code false} is {@code invoker}, {@code true}
     * {@code shared}.
     */
    public static final String PROGRESS_THREAD_PROP_NAME = "verbs4j.progress.thread";
    /** Default: a progress thread runs. */
    public static final boolean PROGRESS_THREAD_DEFAULT = true;

    /** Maximum park time of the backoff idle strategy, in microseconds. */
    public static final String MAX_PARK_PROP_NAME = "verbs4j.idle.max.park.us";
    /** Default maximum park: 100 µs, a compromise between wake-up latency and CPU use on shared cores. */
    public static final long MAX_PARK_DEFAULT_US = 100;

    private CoreConfiguration()
    {
    }

    /** @return the configured idle strategy name. */
    public static String idleStrategyName()
    {
        return System.getProperty(IDLE_STRATEGY_PROP_NAME, IDLE_STRATEGY_DEFAULT);
    }

    /** @return the peer timeout in nanoseconds. */
    public static long peerTimeoutNs()
    {
        return TimeUnit.MILLISECONDS.toNanos(Long.getLong(PEER_TIMEOUT_PROP_NAME, PEER_TIMEOUT_DEFAULT_MS));
    }

    /** @return whether devices run a progress thread. */
    public static boolean progressThread()
    {
        return threadingMode().progressThread();
    }

    /**
     * @return the configured threading mode ({@link #THREADING_MODE_PROP_NAME}, else from
     *         {@link #PROGRESS_THREAD_PROP_NAME}).
     * @throws IllegalArgumentException for an unknown mode name.
     */
    public static ThreadingMode threadingMode()
    {
        final String mode = System.getProperty(THREADING_MODE_PROP_NAME);
        if (null != mode)
        {
            return ThreadingMode.parse(mode);
        }
        final String thread = System.getProperty(PROGRESS_THREAD_PROP_NAME);
        final boolean progressThread = null == thread ? PROGRESS_THREAD_DEFAULT : Boolean.parseBoolean(thread);
        return progressThread ? ThreadingMode.SHARED : ThreadingMode.INVOKER;
    }

    /** @return the backoff strategy's longest park in nanoseconds. */
    public static long maxParkNs()
    {
        return TimeUnit.MICROSECONDS.toNanos(Long.getLong(MAX_PARK_PROP_NAME, MAX_PARK_DEFAULT_US));
    }

    /**
     * @param name an idle strategy name (see {@link #IDLE_STRATEGY_PROP_NAME}).
     * @return a new idle strategy of that kind.
     * @throws IllegalArgumentException for an unknown name, listing the known ones.
     */
    public static IdleStrategy newIdleStrategy(final String name)
    {
        switch (name)
        {
            case "backoff":
                return new BackoffIdleStrategy(64, 16, 1_000, maxParkNs());
            case "spin":
                return new BusySpinIdleStrategy();
            case "yield":
                return new YieldingIdleStrategy();
            case "sleep":
                return new SleepingIdleStrategy(TimeUnit.MICROSECONDS.toNanos(50));
            case "noop":
                return new NoOpIdleStrategy();
            default:
                throw new IllegalArgumentException("unknown idle strategy '" + name +
                    "'; use one of backoff, spin, yield, sleep, noop");
        }
    }
}

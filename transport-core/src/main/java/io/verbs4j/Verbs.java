// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.ServiceLoader;

import io.verbs4j.config.DeviceContext;
import io.verbs4j.spi.JvmAccessCheck;
import io.verbs4j.spi.TransportProvider;

/**
 * Entry point: finds providers on the class path (through {@link ServiceLoader}) and opens devices by name.
 * <pre>{@code
 * try (Device device = Verbs.open("shm")) { ... }
 * }</pre>
 * The first call checks that the JVM was started with the flags verbs4j needs and, if not, fails with an
 * {@link IllegalStateException} that names the exact flag.
 */
public final class Verbs
{
    private Verbs()
    {
    }

    /**
     * Opens a device with default settings.
     *
     * @param providerName {@code shm}, {@code tcp} or another installed provider.
     * @return the device.
     */
    public static Device open(final String providerName)
    {
        Objects.requireNonNull(providerName, "providerName");
        return open(providerName, new DeviceContext());
    }

    /**
     * Opens a device.
     *
     * @param providerName provider name.
     * @param context      settings; concluded by this call.
     * @return the device.
     * @throws IllegalArgumentException if no provider of that name is installed (the message lists the installed).
     * @throws VerbsException if the provider is unusable here (the message says why).
     * @throws IllegalStateException if a required JVM flag is missing (the message names it).
     */
    public static Device open(final String providerName, final DeviceContext context)
    {
        Objects.requireNonNull(providerName, "providerName");
        Objects.requireNonNull(context, "context");
        JvmAccessCheck.ensureAgronaAccess();
        final TransportProvider provider = provider(providerName);
        final String reason = provider.unavailableReason();
        if (null != reason)
        {
            throw new VerbsException("provider '" + providerName + "' is not usable here: " + reason);
        }
        return provider.open(context.conclude());
    }

    /**
     * @param providerName provider name.
     * @return the installed provider of that name.
     * @throws IllegalArgumentException if none, listing those installed.
     */
    public static TransportProvider provider(final String providerName)
    {
        Objects.requireNonNull(providerName, "providerName");
        for (final TransportProvider provider : providers())
        {
            if (provider.name().equals(providerName))
            {
                return provider;
            }
        }
        final List<String> names = new ArrayList<>();
        for (final TransportProvider provider : providers())
        {
            names.add(provider.name());
        }
        throw new IllegalArgumentException("no verbs4j provider named '" + providerName + "'; installed: " + names +
            " (add the transport-" + providerName + " module to the class path)");
    }

    /** @return every installed provider, highest priority first. */
    public static List<TransportProvider> providers()
    {
        final List<TransportProvider> providers = new ArrayList<>();
        final ClassLoader loader = Verbs.class.getClassLoader();
        for (final TransportProvider provider : ServiceLoader.load(TransportProvider.class, loader))
        {
            providers.add(provider);
        }
        providers.sort(Comparator.comparingInt(TransportProvider::priority).reversed());
        return providers;
    }
}

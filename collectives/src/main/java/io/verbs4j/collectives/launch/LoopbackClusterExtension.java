// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.launch;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

import java.time.Duration;
import java.util.Optional;

/**
 * Resolves {@link LoopbackCluster} and {@link ThreadCluster} test parameters from {@link WithLoopbackCluster}.
 * Process clusters write child output to {@code System.out}, where Surefire captures it per test. Nothing needs
 * closing afterwards: each {@code run} cleans up its own processes and directory.
 */
public final class LoopbackClusterExtension implements ParameterResolver
{
    /** Creates the extension (JUnit instantiates it through {@link WithLoopbackCluster}). */
    public LoopbackClusterExtension()
    {
    }

    /** {@inheritDoc} */
    @Override
    public boolean supportsParameter(final ParameterContext parameter, final ExtensionContext context)
    {
        final Class<?> type = parameter.getParameter().getType();
        return LoopbackCluster.class == type || ThreadCluster.class == type;
    }

    /** {@inheritDoc} */
    @Override
    public Object resolveParameter(final ParameterContext parameter, final ExtensionContext context)
    {
        final WithLoopbackCluster config = find(context).orElseThrow(() -> new ParameterResolutionException(
            "annotate the test method or class with @WithLoopbackCluster to get a cluster parameter"));
        if (config.size() < 1 || config.timeoutSeconds() < 1)
        {
            throw new ParameterResolutionException("@WithLoopbackCluster needs size >= 1 and timeoutSeconds >= 1 " +
                "but has size=" + config.size() + ", timeoutSeconds=" + config.timeoutSeconds());
        }
        final Duration timeout = Duration.ofSeconds(config.timeoutSeconds());
        if (ThreadCluster.class == parameter.getParameter().getType())
        {
            return new ThreadCluster(config.size(), timeout);
        }
        return new LoopbackCluster(config.size()).timeout(timeout).output(System.out);
    }

    private static Optional<WithLoopbackCluster> find(final ExtensionContext context)
    {
        final Optional<WithLoopbackCluster> onMethod =
            AnnotationSupport.findAnnotation(context.getTestMethod(), WithLoopbackCluster.class);
        if (onMethod.isPresent())
        {
            return onMethod;
        }
        return AnnotationSupport.findAnnotation(context.getTestClass(), WithLoopbackCluster.class);
    }
}

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.launch;

import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Lets a JUnit 5 test method (or every method of a class) take a {@link LoopbackCluster} or {@link ThreadCluster}
 * parameter, configured by this annotation. A method-level annotation overrides a class-level one.
 *
 * <pre>{@code
 * @Test
 * @WithLoopbackCluster(size = 3, timeoutSeconds = 30)
 * void allReduce(LoopbackCluster cluster)
 * {
 *     assertTrue(cluster.run(MyRank.class.getName()).succeeded());
 * }
 * }</pre>
 * <p>Part of the main jar so that users can test their own rank programs with it; {@code junit-jupiter-api} is an
 * optional ({@code provided}) dependency of this module, present on any JUnit 5 test class path.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@ExtendWith(LoopbackClusterExtension.class)
public @interface WithLoopbackCluster
{
    /**
     * Number of ranks.
     *
     * @return the cluster size, at least 1.
     */
    int size() default 2;

    /**
     * Limit for one run of the cluster.
     *
     * @return seconds, positive.
     */
    long timeoutSeconds() default 60;
}

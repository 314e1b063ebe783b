// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * Running N ranks on one machine for tests and samples: as separate JVM processes ({@link
 * io.verbs4j.collectives.launch.LoopbackCluster}) or as threads sharing an in-memory store ({@link
 * io.verbs4j.collectives.launch.ThreadCluster}).
 */
package io.verbs4j.collectives.launch;

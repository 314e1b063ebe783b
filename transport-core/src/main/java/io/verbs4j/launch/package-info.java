// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * Starting child JVMs on this machine: the JVM flags every verbs4j JVM needs ({@link io.verbs4j.launch.JvmFlags}),
 * the command line ({@link io.verbs4j.launch.JvmLauncher}) and ending a child and what it started
 * ({@link io.verbs4j.launch.ProcessReaper}). The tools, the collectives' {@code LoopbackCluster} and the tests'
 * {@code ChildJvm} all start their JVMs through these classes.
 */
package io.verbs4j.launch;

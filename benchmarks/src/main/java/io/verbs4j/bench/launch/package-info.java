// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * Starting and stopping peer JVMs: the JVM flags, the readiness line, the parent-death watchdog.
 */
package io.verbs4j.bench.launch;

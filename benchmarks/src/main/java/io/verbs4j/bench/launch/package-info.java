// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * Peer JVMs of the tools, started through transport-core's {@link io.verbs4j.launch.JvmLauncher}: the readiness
 * line, the parent-death watchdog, stopping a peer and removing its shm files.
 */
package io.verbs4j.bench.launch;

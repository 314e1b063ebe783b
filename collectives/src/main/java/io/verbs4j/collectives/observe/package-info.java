// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * What a communicator tells the outside while it runs: JDK Flight Recorder events (open a recording in JDK Mission
 * Control, no extra dependency), a history of each rank's last collectives that is logged when the communicator
 * fails, and the {@code VERBS4J_DEBUG} switch that prints at creation how the ranks were connected.
 */
package io.verbs4j.collectives.observe;

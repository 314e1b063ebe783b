// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * Collectives over verbs: {@link io.verbs4j.collectives.Communicator} (AllReduce, Broadcast, Reduce, AllGather,
 * ReduceScatter, AllToAll, Gather, Scatter, Barrier, send/recv; blocking and non-blocking; fused buffers), its
 * settings ({@link io.verbs4j.collectives.CommunicatorContext}, {@link
 * io.verbs4j.collectives.CollectivesConfiguration})
 * and buffers ({@link io.verbs4j.collectives.CommBuffer}). See the module README for the protocol and the rules.
 */
package io.verbs4j.collectives;

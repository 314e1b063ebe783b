// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * Internal: the per-peer message channel the algorithms are written against ({@link
 * io.verbs4j.collectives.link.PeerLink}, {@link io.verbs4j.collectives.link.Links}) and its verbs implementation
 * (credit-based inbox slots written with RDMA_WRITE_WITH_IMM; layouts in {@link
 * io.verbs4j.collectives.link.ImmediateData} and {@link io.verbs4j.collectives.link.Handshake}).
 */
package io.verbs4j.collectives.link;

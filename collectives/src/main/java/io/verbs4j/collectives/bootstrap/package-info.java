// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/** Internal: rendezvous, per-peer transport choice and the full mesh of queue pairs of a communicator. */
package io.verbs4j.collectives.bootstrap;

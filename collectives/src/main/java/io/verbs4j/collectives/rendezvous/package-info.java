// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * Bootstrap: key/value rendezvous stores (in-memory, file, TCP, prefixed) and the address exchange the
 * communicators use to find each other before any transport is up.
 *
 * <p>The model is Gloo's and PyTorch's store: ranks publish small values under agreed keys and block, with a
 * timeout, until the keys they need are present. Nothing here is on a data path.
 */
package io.verbs4j.collectives.rendezvous;

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * Baselines measured next to verbs4j: plain sockets, NIO, raw shared memory and memcpy.
 */
package io.verbs4j.bench.baseline;

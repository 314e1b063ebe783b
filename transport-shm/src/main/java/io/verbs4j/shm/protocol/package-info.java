// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * Byte layouts of the shm provider: every shared-memory segment and every ring record is described here by a
 * descriptor class with an ASCII diagram and {@code *_OFFSET} constants (tested in {@code ProtocolLayoutTest}).
 * All multi-byte fields are native byte order (both sides are on one machine); every segment starts with a magic
 * and a {@link io.verbs4j.shm.protocol.SegmentHeader#VERSION version}.
 */
package io.verbs4j.shm.protocol;

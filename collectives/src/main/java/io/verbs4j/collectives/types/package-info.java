// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * Element types, reduction operators and the allocation-free reduction kernels the collectives apply to
 * off-heap memory.
 *
 * <p>All kernels address memory by raw {@code long} addresses and read/write elements in the platform's native
 * byte order. They are deterministic: the same input bits always give the same output bits on a given platform.
 */
package io.verbs4j.collectives.types;

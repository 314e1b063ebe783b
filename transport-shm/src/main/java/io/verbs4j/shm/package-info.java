// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * The shm provider: verbs over shared memory between threads and processes of one machine. See
 * transport-shm/README.md for the design, the limits and the runtime parameters; byte layouts are in
 * {@link io.verbs4j.shm.protocol}.
 */
package io.verbs4j.shm;

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * Running sessions: the transport registry, the timed loops, the perftest client and server.
 */
package io.verbs4j.bench.run;

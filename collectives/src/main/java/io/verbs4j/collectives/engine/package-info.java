// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * Internal: runs one operation on the calling thread (argument checks, buffer binding and staging, algorithm choice,
 * completion, AVG division) with no allocation in steady state.
 */
package io.verbs4j.collectives.engine;

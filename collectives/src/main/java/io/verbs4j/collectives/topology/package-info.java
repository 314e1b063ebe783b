// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * Communication patterns as pure functions of the world size: ring order and chunking, NCCL's double binary tree,
 * and the recursive doubling / halving-doubling peer schedule. No transport, no I/O: algorithms resolve their peers
 * from these once, at setup, and keep the results.
 */
package io.verbs4j.collectives.topology;

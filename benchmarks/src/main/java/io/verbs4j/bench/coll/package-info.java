// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * The nccl-tests-style collectives benchmark behind {@code verbs4j coll}: the collectives and their accounting
 * ({@link io.verbs4j.bench.coll.Collective}), the per-rank runner ({@link io.verbs4j.bench.coll.CollRank}), the
 * correctness data ({@link io.verbs4j.bench.coll.DataPattern}) and nccl-tests' table text
 * ({@link io.verbs4j.bench.coll.NcclTestsFormat}).
 */
package io.verbs4j.bench.coll;

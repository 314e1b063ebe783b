// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * Runnable demos of the collectives: {@link io.verbs4j.collectives.demo.TrainingDemo} trains a small model
 * data-parallel over processes on this machine and prints an AllReduce timing table;
 * {@link io.verbs4j.collectives.demo.EnvAllReduce} is one rank of an AllReduce bootstrapped from torchrun-style
 * environment variables (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE), for ranks started by any launcher.
 */
package io.verbs4j.collectives.demo;

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * verbs4j for Apache Spark's barrier execution mode: {@link io.verbs4j.spark.BarrierCommunicators} builds a
 * {@link io.verbs4j.collectives.Communicator} per barrier task (rank = partition id) whose bootstrap goes through
 * {@code BarrierTaskContext.allGather}; {@link io.verbs4j.spark.SparkBarrier} gives Java code
 * {@code rdd.barrier().mapPartitions}. The shaded jar of this module carries transport-tcp's Netty relocated to
 * {@code io.verbs4j.shaded.io.netty}, so it coexists with Spark's own Netty.
 */
package io.verbs4j.spark;

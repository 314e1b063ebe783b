// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * verbs4j for Apache Spark's barrier execution mode: {@link io.verbs4j.spark.BarrierCommunicators} builds a
 * {@link io.verbs4j.collectives.Communicator} per barrier task (rank = partition id) whose bootstrap goes through
 * {@code BarrierTaskContext.allGather}; {@link io.verbs4j.spark.SparkBarrier} gives Java code
 * {@code rdd.barrier().mapPartitions}. The shaded jar of this module carries verbs4j-tcp's Netty relocated to
 * {@code io.verbs4j.shaded.io.netty} and Agrona relocated to {@code io.verbs4j.shaded.org.agrona}, so it coexists
 * with Spark's own Netty and with any other Agrona.
 */
package io.verbs4j.spark;

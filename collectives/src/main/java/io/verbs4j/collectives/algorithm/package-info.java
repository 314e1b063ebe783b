// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * Internal: the algorithms, one class each, written in the blocking primitives of {@link
 * io.verbs4j.collectives.algorithm.Steps}, with the cost model and its calibration.
 */
package io.verbs4j.collectives.algorithm;

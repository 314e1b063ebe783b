// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * The byte layouts of the verbs4j TCP wire protocol: one flyweight per layout, each with a diagram, offset
 * constants and a version field first.
 */
package io.verbs4j.tcp.protocol;

// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

/**
 * The perftest control connection between initiator and responder hosts.
 */
package io.verbs4j.bench.control;

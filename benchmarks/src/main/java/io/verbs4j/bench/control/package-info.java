/**
 * The perftest control connection between initiator and responder hosts.
 */
package io.verbs4j.bench.control;

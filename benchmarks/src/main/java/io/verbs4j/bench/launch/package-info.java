/**
 * Starting and stopping peer JVMs: the JVM flags, the readiness line, the parent-death watchdog.
 */
package io.verbs4j.bench.launch;

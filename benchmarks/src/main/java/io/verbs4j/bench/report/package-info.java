/**
 * perftest-style and JSON reporting from HdrHistogram.
 */
package io.verbs4j.bench.report;

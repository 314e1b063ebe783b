/**
 * Runnable demos of the collectives: {@link io.verbs4j.collectives.demo.TrainingDemo} trains a small model
 * data-parallel over processes on this machine and prints an AllReduce timing table.
 */
package io.verbs4j.collectives.demo;

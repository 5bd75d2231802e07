/**
 * Micronaut glue: {@link io.squall.functions.worker.micronaut.WorkerApplication} runs a
 * {@link io.squall.functions.worker.Worker} inside its own application context, wired by a bean factory.
 * Nothing outside this package imports Micronaut.
 */
package io.squall.functions.worker.micronaut;

/**
 * {@code squall bench serve}: a streaming load generator for the OpenAI API (synthetic or traced workloads,
 * fixed concurrency or a request rate), its in-process counterpart that drives a worker's
 * {@link io.squall.functions.api.GenerateService} directly, and the report (JSON and a PNG of the distributions).
 */
package io.squall.cli.bench;

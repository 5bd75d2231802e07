/**
 * {@code squall bench serve}: a streaming load generator for the OpenAI API (synthetic or traced workloads,
 * fixed concurrency or a request rate), its in-process counterpart that drives a worker's
 * {@link io.squall.functions.api.GenerateService} directly, and the report (JSON and a PNG of the distributions).
 * {@code squall bench fuzz}: the wire fuzzer, which sends random and mutated requests to every RSocket route, and
 * mutated raw frames, to a running cluster it joins or to stages it starts in-process, and reports how each was
 * answered. {@code squall bench soak}: a long mixed load against a running server while its JVM and workers are
 * sampled. {@code squall bench chaos}: a cluster of separate stage processes under a streaming load of known output,
 * with faults injected (processes killed and stopped, links cut and slowed through a relay, a cluster member lost,
 * a failing or corrupt disk tier, the gateway restarted) and every request and KV pool checked afterwards.
 */
package io.squall.cli.bench;

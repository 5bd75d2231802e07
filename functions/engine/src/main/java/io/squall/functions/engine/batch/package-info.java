/**
 * Continuous batching: {@link io.squall.functions.engine.batch.BatchScheduler} runs many sequences on
 * one transformer, adding and removing them between steps. Each step is one forward pass holding one
 * token of every decoding sequence plus chunks of prompts being prefilled (chunked prefill), bounded by
 * a token budget; admission is bounded by KV blocks, and sequences are preempted (freed and later
 * recomputed) when blocks run out. Framework-free: the worker adapts it to Reactor and RSocket.
 */
package io.squall.functions.engine.batch;

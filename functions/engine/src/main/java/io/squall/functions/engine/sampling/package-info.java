/**
 * Token sampling: {@link io.squall.functions.engine.sampling.SamplingParams} (what the request asked for),
 * {@link io.squall.functions.engine.sampling.Sampler} (one per sequence: penalties, greedy or top-k / top-p /
 * min-p / temperature, a seeded draw) and the log-probabilities reported to OpenAI clients.
 *
 * <p>The pipeline follows llama.cpp's default sampler chain, so the same parameters give the same support
 * set as llama.cpp does. Nothing here allocates vocabulary-sized arrays per call.
 */
package io.squall.functions.engine.sampling;

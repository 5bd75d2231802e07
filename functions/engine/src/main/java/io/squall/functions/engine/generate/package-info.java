/**
 * Generation of one sequence at a time on top of the transformer: chunked prompt prefill, then a
 * sampled decode loop that stops at an end-of-generation token or a token budget. Used by
 * {@code squall run} and as the unbatched reference that continuous batching must match.
 */
package io.squall.functions.engine.generate;

package io.squall.functions.api;

/**
 * The {@code prefill} route's answer.
 *
 * @param firstToken the token sampled after the prompt
 * @param blocksWritten KV blocks written into the decode worker's reserved blocks
 */
public record PrefillResult(int firstToken, int blocksWritten) {
}

package io.squall.functions.api;

import java.util.Objects;

/**
 * The {@code prefill} route's request: compute the KV of {@code tokens} on a prefill worker and write it
 * into blocks that the decode worker {@code targetWorker} reserved.
 *
 * @param requestId the gateway's id of the request, for logs
 * @param tokens prompt token ids (not empty)
 * @param targetWorker the decode worker that owns the sequence, as printed by {@code InstanceId}
 * @param destinationBlockIds the decode worker's block ids, one per prompt block, in order
 */
public record PrefillRequest(String requestId, int[] tokens, String targetWorker, int[] destinationBlockIds) {

    public PrefillRequest {
        Objects.requireNonNull(requestId, "requestId");
        Objects.requireNonNull(tokens, "tokens");
        Objects.requireNonNull(targetWorker, "targetWorker");
        Objects.requireNonNull(destinationBlockIds, "destinationBlockIds");
    }
}

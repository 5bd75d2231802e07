package io.squall.functions.api;

import java.util.Objects;

/**
 * The {@code prefill} route's request: compute the KV of {@code tokens} on a prefill worker and push the
 * blocks {@code firstBlock .. firstBlock + destinationBlockIds.length - 1} of it (in blocks of the
 * cluster's block size) over {@code kv.push} into the pages that the decode worker {@code targetWorker}
 * reserved under {@code reservation}; blocks before {@code firstBlock} the decode worker already holds.
 *
 * @param requestId the gateway's id of the request, for logs
 * @param tokens prompt token ids (not empty)
 * @param targetWorker the decode worker that owns the sequence, as printed by {@code InstanceId}
 * @param destinationBlockIds the decode worker's page ids, one per pushed block, in order
 * @param firstBlock the prompt block (counted from 0) that {@code destinationBlockIds[0]} receives
 * @param reservation the decode worker's handle for the reserved pages, echoed in the {@code kv.push} header
 * @param sampling how the first token is sampled, as the decode worker would sample it
 */
public record PrefillRequest(String requestId, int[] tokens, String targetWorker, int[] destinationBlockIds,
                             int firstBlock, long reservation, SamplingOptions sampling) {

    public PrefillRequest {
        Objects.requireNonNull(requestId, "requestId");
        Objects.requireNonNull(tokens, "tokens");
        Objects.requireNonNull(targetWorker, "targetWorker");
        Objects.requireNonNull(destinationBlockIds, "destinationBlockIds");
        Objects.requireNonNull(sampling, "sampling");
        if (tokens.length == 0) {
            throw new IllegalArgumentException("the prompt is empty");
        }
        if (firstBlock < 0) {
            throw new IllegalArgumentException("firstBlock must not be negative");
        }
    }
}

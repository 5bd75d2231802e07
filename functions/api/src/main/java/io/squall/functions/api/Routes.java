package io.squall.functions.api;

/** RSocket route names (routing metadata extension {@code message/x.rsocket.routing.v0}). */
public final class Routes {

    /** Request-stream: {@link GenerateRequest} → {@link TokenChunk}s. Served by aggregated and decode workers. */
    public static final String GENERATE = "generate";
    /** Request-response: a prompt's KV computed by a prefill worker for a decode worker. */
    public static final String PREFILL = "prefill";
    /** Request-channel: KV block frames pushed from a prefill worker into a decode worker's reserved blocks. */
    public static final String KV_PUSH = "kv.push";
    /** Request-stream: block hashes → KV block frames, onboarding a prefix from another worker. */
    public static final String KV_FETCH = "kv.fetch";
    /** Request-stream, JSON: OpenAI chat completions for RSocket clients of the gateway. */
    public static final String V1_CHAT = "v1.chat";
    /** Request-stream, JSON: OpenAI completions for RSocket clients of the gateway. */
    public static final String V1_COMPLETIONS = "v1.completions";

    private Routes() {
    }
}

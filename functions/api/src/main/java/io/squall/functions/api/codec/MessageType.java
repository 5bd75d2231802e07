package io.squall.functions.api.codec;

/** The message type byte that follows the version byte in every frame; tags are never reused. */
public enum MessageType {
    GENERATE_REQUEST(1),
    TOKEN_CHUNK(2),
    PREFILL_REQUEST(3),
    PREFILL_RESULT(4),
    KV_BLOCK_FRAME(5),
    WORKER_INSTANCE(6),
    KV_FETCH_REQUEST(7),
    KV_PUSH_HEADER(8);

    private final int tag;

    MessageType(int tag) {
        this.tag = tag;
    }

    public int tag() {
        return tag;
    }
}

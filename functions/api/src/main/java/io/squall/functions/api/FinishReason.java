package io.squall.functions.api;

/**
 * Why a sequence's generation ended: the one enum of the whole path, from the engine's scheduler through
 * the {@code generate} stream to the gateway's {@code finish_reason}.
 */
public enum FinishReason {
    /** An end-of-generation token was sampled (it is not part of the output), or a stop string matched. */
    STOP("stop"),
    /** The token budget or the context ran out. */
    LENGTH("length"),
    /** The caller cancelled; a gateway never shows this to a client. */
    CANCELLED("cancelled"),
    /** The model called tools: set by the gateway once it parsed tool calls from the text; workers never send it. */
    TOOL_CALLS("tool_calls");

    private final String wireName;

    FinishReason(String wireName) {
        this.wireName = wireName;
    }

    /** The name OpenAI's {@code finish_reason} and the CLI's JSON use. */
    public String wireName() {
        return wireName;
    }
}

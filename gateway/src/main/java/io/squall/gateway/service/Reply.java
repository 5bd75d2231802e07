package io.squall.gateway.service;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.Objects;

/** What a transport sends back for an accepted request: one JSON body, or a stream of JSON chunks. */
public sealed interface Reply {

    /**
     * A non-streaming response: the body once generation ends, or an error signal carrying an
     * {@link io.squall.gateway.openai.ApiException} to map to a status. Cancelling it cancels the generation.
     */
    record Single(Mono<String> body) implements Reply {
        public Single {
            Objects.requireNonNull(body, "body");
        }
    }

    /**
     * A streaming response: OpenAI chunk objects as JSON text, in order, without the SSE framing or the
     * {@code [DONE]} marker. Errors after the stream started arrive as an error signal carrying an
     * {@link io.squall.gateway.openai.ApiException}. Demand: each chunk is produced on request; cancelling
     * cancels the generation.
     */
    record Stream(Flux<String> chunks) implements Reply {
        public Stream {
            Objects.requireNonNull(chunks, "chunks");
        }
    }
}

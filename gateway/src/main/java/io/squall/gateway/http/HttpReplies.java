package io.squall.gateway.http;

import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.sse.Event;
import io.squall.gateway.openai.ApiException;
import io.squall.gateway.openai.Json;
import io.squall.gateway.service.Reply;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Turns service replies and failures into Micronaut responses: JSON bodies, or SSE ending in {@code [DONE]}. */
final class HttpReplies {

    /** The SSE data that ends an OpenAI stream. */
    static final String DONE = "[DONE]";

    private HttpReplies() {
    }

    /** The OpenAI error JSON with the failure's status. */
    static MutableHttpResponse<String> error(ApiException failure) {
        return HttpResponse.<String>status(HttpStatus.valueOf(failure.error().httpStatus()))
                .contentType(MediaType.APPLICATION_JSON_TYPE)
                .body(Json.error(failure));
    }

    static MutableHttpResponse<String> json(String body) {
        return HttpResponse.ok(body).contentType(MediaType.APPLICATION_JSON_TYPE);
    }

    /**
     * A reply as a response: a whole body once it is ready (or its error status), or an SSE stream of
     * {@code data:} events ending with {@code data: [DONE]}. An error after the stream began is sent as one
     * {@code data: {"error":...}} event before {@code [DONE]}, since the status line is already gone.
     */
    static Publisher<MutableHttpResponse<?>> of(Reply reply) {
        return switch (reply) {
            case Reply.Single single -> single.body()
                    .<MutableHttpResponse<?>>map(HttpReplies::json)
                    .onErrorResume(e -> Mono.just(error(ApiException.from(e))));
            case Reply.Stream stream -> {
                Flux<Event<String>> events = stream.chunks()
                        .map(Event::of)
                        .onErrorResume(e -> Mono.just(Event.of(Json.error(ApiException.from(e)))))
                        .concatWith(Mono.just(Event.of(DONE)));
                yield Mono.just(HttpResponse.ok(events).contentType(MediaType.TEXT_EVENT_STREAM_TYPE));
            }
        };
    }
}

package io.squall.gateway.http;

import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Header;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.squall.gateway.openai.ApiException;
import io.squall.gateway.service.ApiRequest;
import io.squall.gateway.service.OpenAiService;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

/**
 * The OpenAI routes. Bodies are taken as raw bytes and validated by the service, so every bad input gets an
 * OpenAI error object. Runs on the blocking executor: template rendering and tokenization are CPU work that must
 * not stall the event loop.
 */
@Controller
@Requires(property = MicronautHttpFrontEnd.ENABLED_PROPERTY, value = "true")
@ExecuteOn(TaskExecutors.BLOCKING)
final class OpenAiController {

    private final OpenAiService service;

    OpenAiController(OpenAiService service) {
        this.service = service;
    }

    @Get(uri = "/v1/models", produces = MediaType.APPLICATION_JSON)
    MutableHttpResponse<String> models(@Nullable @Header(HttpHeaders.AUTHORIZATION) String authorization) {
        try {
            return HttpReplies.json(service.models(authorization));
        } catch (ApiException e) {
            return HttpReplies.error(e);
        }
    }

    @Post(uri = "/v1/chat/completions", consumes = MediaType.ALL, produces = {MediaType.APPLICATION_JSON, MediaType.TEXT_EVENT_STREAM})
    Publisher<MutableHttpResponse<?>> chat(@Nullable @Header(HttpHeaders.AUTHORIZATION) String authorization,
                                           @Body byte[] body) {
        try {
            return HttpReplies.of(service.chat(request(authorization, body)));
        } catch (ApiException e) {
            return Mono.just(HttpReplies.error(e));
        }
    }

    @Post(uri = "/v1/completions", consumes = MediaType.ALL, produces = {MediaType.APPLICATION_JSON, MediaType.TEXT_EVENT_STREAM})
    Publisher<MutableHttpResponse<?>> completions(@Nullable @Header(HttpHeaders.AUTHORIZATION) String authorization,
                                                  @Body byte[] body) {
        try {
            return HttpReplies.of(service.completions(request(authorization, body)));
        } catch (ApiException e) {
            return Mono.just(HttpReplies.error(e));
        }
    }

    private static ApiRequest request(String authorization, byte[] body) {
        return new ApiRequest(authorization, body == null ? new byte[0] : body, ApiRequest.Delivery.AS_REQUESTED);
    }
}

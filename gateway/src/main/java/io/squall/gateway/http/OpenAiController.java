package io.squall.gateway.http;

import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Header;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.server.netty.NettyHttpRequest;
import io.micronaut.scheduling.TaskExecutors;
import io.squall.gateway.openai.ApiException;
import io.squall.gateway.service.ApiRequest;
import io.squall.gateway.service.OpenAiService;
import io.squall.gateway.service.Reply;
import jakarta.inject.Named;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import java.util.concurrent.ExecutorService;
import java.util.function.Function;

/**
 * The OpenAI routes. Bodies are taken as raw bytes and validated by the service, so every bad input gets an
 * OpenAI error object.
 *
 * <p>Threads: the routes run on the connection's event loop, and a streamed reply is produced on that same loop
 * (see {@link ApiRequest#emitOn()}), so a token costs one hop from the worker's thread to the socket. Parsing,
 * template rendering and tokenization are CPU work in proportion to the body: a body of at most
 * {@value #INLINE_BODY_BYTES} bytes is handled on the event loop (a hop to another pool would cost more than the
 * work), a larger one on the blocking executor so that a long prompt never stalls the other connections of its loop.
 */
@Controller
@Requires(property = MicronautHttpFrontEnd.ENABLED_PROPERTY, value = "true")
final class OpenAiController {

    /** The largest body parsed and tokenized on the event loop; larger ones go to the blocking executor. */
    static final int INLINE_BODY_BYTES = 4096;

    private final OpenAiService service;
    private final Scheduler blocking;

    OpenAiController(OpenAiService service, @Named(TaskExecutors.BLOCKING) ExecutorService blocking) {
        this.service = service;
        this.blocking = Schedulers.fromExecutor(blocking);
    }

    @Get(uri = "/v1/models", produces = MediaType.APPLICATION_JSON)
    MutableHttpResponse<String> models(@Nullable @Header(HttpHeaders.AUTHORIZATION) String authorization) {
        try {
            return HttpReplies.json(service.models(authorization));
        } catch (ApiException e) {
            return HttpReplies.error(e);
        }
    }

    @Post(uri = "/tokenize", consumes = MediaType.ALL, produces = MediaType.APPLICATION_JSON)
    MutableHttpResponse<String> tokenize(@Nullable @Header(HttpHeaders.AUTHORIZATION) String authorization,
                                         @Nullable @Body byte[] body) {
        try {
            return HttpReplies.json(service.tokenize(new ApiRequest(authorization, body == null ? new byte[0] : body,
                    ApiRequest.Delivery.AS_REQUESTED, Schedulers.immediate())));
        } catch (ApiException e) {
            return HttpReplies.error(e);
        }
    }

    @Post(uri = "/v1/chat/completions", consumes = MediaType.ALL, produces = {MediaType.APPLICATION_JSON, MediaType.TEXT_EVENT_STREAM})
    Publisher<MutableHttpResponse<?>> chat(HttpRequest<?> http, @Nullable @Header(HttpHeaders.AUTHORIZATION) String authorization,
                                           @Nullable @Body byte[] body) {
        return handle(http, authorization, body, service::chat);
    }

    @Post(uri = "/v1/completions", consumes = MediaType.ALL, produces = {MediaType.APPLICATION_JSON, MediaType.TEXT_EVENT_STREAM})
    Publisher<MutableHttpResponse<?>> completions(HttpRequest<?> http, @Nullable @Header(HttpHeaders.AUTHORIZATION) String authorization,
                                                  @Nullable @Body byte[] body) {
        return handle(http, authorization, body, service::completions);
    }

    private Publisher<MutableHttpResponse<?>> handle(HttpRequest<?> http, String authorization, byte[] body,
                                                     Function<ApiRequest, Reply> route) {
        ApiRequest request = new ApiRequest(authorization, body == null ? new byte[0] : body,
                ApiRequest.Delivery.AS_REQUESTED, emitOn(http));
        if (request.body().length <= INLINE_BODY_BYTES) {
            return respond(route, request);
        }
        return Mono.defer(() -> Mono.from(respond(route, request))).subscribeOn(blocking);
    }

    private static Publisher<MutableHttpResponse<?>> respond(Function<ApiRequest, Reply> route, ApiRequest request) {
        try {
            return HttpReplies.of(route.apply(request));
        } catch (ApiException e) {
            return Mono.just(HttpReplies.error(e));
        }
    }

    /** The connection's event loop, where Micronaut writes the response. */
    private static Scheduler emitOn(HttpRequest<?> http) {
        if (http instanceof NettyHttpRequest<?> netty) {
            return Schedulers.fromExecutor(netty.getChannelHandlerContext().channel().eventLoop());
        }
        return Schedulers.parallel();
    }
}

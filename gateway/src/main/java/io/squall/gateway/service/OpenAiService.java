package io.squall.gateway.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.squall.functions.api.CacheSources;
import io.squall.functions.api.GenerateRequest;
import io.squall.functions.api.TokenChunk;
import io.squall.gateway.admission.InFlightLimiter;
import io.squall.gateway.metrics.GatewayMetrics;
import io.squall.gateway.openai.ApiError;
import io.squall.gateway.openai.ApiException;
import io.squall.gateway.openai.ChatRequest;
import io.squall.gateway.openai.CompletionRequest;
import io.squall.gateway.openai.GenerationParams;
import io.squall.gateway.openai.Json;
import io.squall.gateway.openai.TokenizeRequest;
import io.squall.gateway.preprocess.TextDelta;
import io.squall.gateway.preprocess.TextStream;
import io.squall.gateway.routing.RouteNote;
import io.squall.gateway.security.ApiKeyGuard;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The OpenAI API, independent of transport: authenticates, validates, preprocesses, admits, runs the
 * choices on the model's {@link io.squall.functions.api.GenerateService} and shapes the output. HTTP and
 * RSocket glue call it.
 *
 * <p>Synchronous failures (auth, validation, unknown model, context, overload of a streamed request) are
 * thrown as {@link ApiException} before any output; later failures are error signals carrying one.
 *
 * <p>Threads: the worker's tokens are handed to the request's {@link ApiRequest#emitOn()} scheduler (for HTTP,
 * the connection's event loop), where they are detokenized, matched against stop strings and formatted, so the
 * worker's thread never formats JSON and a formatted chunk is written without a further hop.
 *
 * <p>Demand and buffering: each choice prefetches at most {@value #TOKEN_WINDOW} token chunks from the worker and
 * asks for more once three quarters of them are consumed, so at one stream the worker is never idle waiting for
 * a {@code request(n)} round trip, and generation stays at most that far ahead of a slow client; beyond that,
 * the client's demand drives generation. Thread-safe.
 */
public final class OpenAiService {

    /** Token chunks a choice may hold between the worker and the client. */
    static final int TOKEN_WINDOW = 16;
    private static final Logger LOG = LoggerFactory.getLogger(OpenAiService.class);
    private static final String UNKNOWN_MODEL = "unknown";

    private final ModelRegistry models;
    private final ApiKeyGuard guard;
    private final InFlightLimiter limiter;
    private final GatewayMetrics metrics;
    private final Duration timeout;

    /** @param timeout how long a request may take, queueing included */
    public OpenAiService(ModelRegistry models, ApiKeyGuard guard, InFlightLimiter limiter, GatewayMetrics metrics,
                         Duration timeout) {
        this.models = Objects.requireNonNull(models, "models");
        this.guard = Objects.requireNonNull(guard, "guard");
        this.limiter = Objects.requireNonNull(limiter, "limiter");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
    }

    /** The API's two generation routes, as labelled in metrics. */
    enum Route {
        CHAT("chat_completions"),
        COMPLETIONS("completions");

        final String label;

        Route(String label) {
            this.label = label;
        }
    }

    /**
     * {@code GET /v1/models}.
     *
     * @throws ApiException 401 or 429 from the key check
     */
    public String models(String authorization) {
        guard.check(authorization);
        return models.listJson();
    }

    /**
     * {@code POST /tokenize} (vLLM's extension): the prompt's token ids as generation would see them, with the
     * model's context length as its workers advertise it: {@code {"count":n,"max_model_len":c,"tokens":[…]}}
     * ({@code max_model_len} absent while no worker serves the model).
     *
     * @throws ApiException 401/429 from the key check, 404 for an unknown model, 400 for a bad body
     */
    public String tokenize(ApiRequest request) {
        guard.check(request.authorization());
        TokenizeRequest tokenize = TokenizeRequest.parse(Json.parse(request.body()));
        ModelRegistry.Served served = models.get(tokenize.model());
        int[] ids = tokenize.prompt() != null ? served.preprocessor().text(tokenize.prompt())
                : served.preprocessor().chat(tokenize.messages(), null);
        ObjectNode root = Json.object();
        root.put("count", ids.length);
        served.endpoint().context().tokens().ifPresent(context -> root.put("max_model_len", context));
        ArrayNode tokens = root.putArray("tokens");
        for (int id : ids) {
            tokens.add(id);
        }
        return Json.write(root);
    }

    /** {@code POST /v1/chat/completions}. */
    public Reply chat(ApiRequest request) {
        long start = System.nanoTime();
        String model = UNKNOWN_MODEL;
        try {
            guard.check(request.authorization());
            JsonNode body = Json.parse(request.body());
            ChatRequest chat = ChatRequest.parse(body);
            ModelRegistry.Served served = models.get(chat.params().model());
            model = served.name();
            served.preprocessor().checkLogitBias(chat.params().sampling().logitBias());
            int[] prompt = served.preprocessor().chat(chat.messages(), chat.tools());
            int budget = served.preprocessor().budget(prompt.length, chat.params().maxTokens());
            boolean tools = chat.tools() != null;
            Job job = new Job(Route.CHAT, served, chat.params(), List.of(prompt), List.of(), new int[] {budget}, start,
                    tools, request.emitOn(), notes(chat.params().n()), GenerationParams.returnRouting(body));
            ResponseFormat format = new ChatFormat(newId("chatcmpl-"), Instant.now().getEpochSecond(), model,
                    served.endpoint().tokenizer(), job.choices(), tools);
            return reply(job, format, request.delivery());
        } catch (RuntimeException e) {
            throw rejected(Route.CHAT, model, start, e);
        }
    }

    /** {@code POST /v1/completions}. */
    public Reply completions(ApiRequest request) {
        long start = System.nanoTime();
        String model = UNKNOWN_MODEL;
        try {
            guard.check(request.authorization());
            JsonNode body = Json.parse(request.body());
            CompletionRequest completion = CompletionRequest.parse(body);
            ModelRegistry.Served served = models.get(completion.params().model());
            model = served.name();
            served.preprocessor().checkLogitBias(completion.params().sampling().logitBias());
            List<int[]> prompts = new ArrayList<>();
            List<String> echoes = new ArrayList<>();
            int[] budgets = new int[completion.prompts().size()];
            for (CompletionRequest.Prompt prompt : completion.prompts()) {
                int[] ids = switch (prompt) {
                    case CompletionRequest.Prompt.Text text -> served.preprocessor().text(text.text());
                    case CompletionRequest.Prompt.Tokens tokens -> served.preprocessor().tokens(tokens.ids());
                };
                budgets[prompts.size()] = served.preprocessor().budget(ids.length, completion.params().maxTokens());
                prompts.add(ids);
                if (completion.echo()) {
                    echoes.add(switch (prompt) {
                        case CompletionRequest.Prompt.Text text -> text.text();
                        case CompletionRequest.Prompt.Tokens tokens -> served.endpoint().tokenizer().decode(tokens.ids());
                    });
                }
            }
            Job job = new Job(Route.COMPLETIONS, served, completion.params(), prompts, echoes, budgets, start, false,
                    request.emitOn(), notes(prompts.size() * completion.params().n()),
                    GenerationParams.returnRouting(body));
            ResponseFormat format = new CompletionFormat(newId("cmpl-"), Instant.now().getEpochSecond(), model,
                    served.endpoint().tokenizer(), job.choices());
            return reply(job, format, request.delivery());
        } catch (RuntimeException e) {
            throw rejected(Route.COMPLETIONS, model, start, e);
        }
    }

    /** One note per choice, for the router to fill in. */
    private static List<RouteNote> notes(int choices) {
        List<RouteNote> notes = new ArrayList<>(choices);
        for (int i = 0; i < choices; i++) {
            notes.add(new RouteNote());
        }
        return notes;
    }

    private ApiException rejected(Route route, String model, long start, RuntimeException failure) {
        ApiException api = ApiException.from(failure);
        if (api.error() == ApiError.INTERNAL) {
            LOG.warn("{} request failed before generation", route.label, failure);
        }
        metrics.request(route.label, model, api.error().httpStatus(), seconds(System.nanoTime() - start));
        return api;
    }

    /**
     * What one accepted request runs.
     *
     * @param prompts one or more prompts; choice {@code i} continues prompt {@code i / n}
     * @param echoes  per prompt, the text each of its choices starts with ({@code echo}); empty when not echoing
     * @param budgets token budget per prompt
     * @param emitOn  where the worker's tokens are turned into output
     * @param routes  per choice, where the router sent it
     * @param reportRouting whether the response shows {@code routes} (the extension {@code return_routing})
     */
    private record Job(Route route, ModelRegistry.Served served, GenerationParams params, List<int[]> prompts,
                       List<String> echoes, int[] budgets, long startNanos, boolean toolsActive, Scheduler emitOn,
                       List<RouteNote> routes, boolean reportRouting) {

        List<RouteNote> reportedRoutes() {
            return reportRouting ? routes : List.of();
        }

        int choices() {
            return prompts.size() * params.n();
        }

        int promptTokens() {
            return prompts.stream().mapToInt(p -> p.length).sum();
        }
    }

    /** A delta of choice {@code index}. */
    private record Indexed(int index, TextDelta delta) {
    }

    private Reply reply(Job job, ResponseFormat format, ApiRequest.Delivery delivery) {
        boolean stream = delivery == ApiRequest.Delivery.STREAM || job.params().stream();
        if (stream) {
            if (limiter.isFull()) {
                throw new ApiException(ApiError.OVERLOADED, "the gateway is at its in-flight limit and its queue is full; "
                        + "retry later", null, "overloaded");
            }
            return new Reply.Stream(Flux.defer(() -> streamed(job, format)));
        }
        return new Reply.Single(Mono.defer(() -> whole(job, format)));
    }

    private Flux<String> streamed(Job job, ResponseFormat format) {
        Observer observer = new Observer(job);
        Flux<String> chunks = observed(job, observer).map(d -> format.chunk(d.index(), d.delta()));
        if (job.params().includeUsage()) {
            chunks = chunks.concatWith(Mono.fromSupplier(() -> format.usageChunk(observer.usage(), job.reportedRoutes())));
        }
        return chunks;
    }

    private Mono<String> whole(Job job, ResponseFormat format) {
        Observer observer = new Observer(job);
        return observed(job, observer)
                .collectList()
                .map(deltas -> {
                    TextDelta[] choices = new TextDelta[job.choices()];
                    for (Indexed d : deltas) {
                        choices[d.index()] = choices[d.index()] == null ? d.delta() : choices[d.index()].append(d.delta());
                    }
                    return format.response(List.of(choices), observer.usage(), job.reportedRoutes());
                });
    }

    /** All choices merged, admitted by the limiter, bounded by the timeout, observed for metrics. */
    private Flux<Indexed> observed(Job job, Observer observer) {
        List<Flux<Indexed>> choices = new ArrayList<>(job.choices());
        for (int i = 0; i < job.choices(); i++) {
            choices.add(choice(job, i));
        }
        Flux<Indexed> admitted = limiter.acquire()
                .flatMapMany(permit -> Flux.merge(choices).doFinally(signal -> permit.release()));
        return withDeadline(admitted, job.startNanos() + timeout.toNanos())
                .onErrorMap(e -> {
                    ApiException api = ApiException.from(e);
                    if (api.error() == ApiError.TIMEOUT) {
                        metrics.cancellation("timeout");
                    } else if (api.error() == ApiError.INTERNAL) {
                        LOG.warn("{} request failed during generation", job.route().label, e);
                    }
                    return api;
                })
                .doOnNext(observer::onNext)
                .doOnComplete(observer::onComplete)
                .doOnError(observer::onError)
                .doOnCancel(observer::onCancel);
    }

    private Flux<Indexed> choice(Job job, int index) {
        GenerationParams params = job.params();
        int promptIndex = index / params.n();
        int[] prompt = job.prompts().get(promptIndex);
        GenerateRequest request = new GenerateRequest(newId("seq-"), prompt, params.samplingFor(index % params.n()),
                job.budgets()[promptIndex], params.ignoreEos(), params.topLogprobs());
        Flux<TokenChunk> upstream = Flux.defer(() -> job.served().endpoint().service().generate(request))
                .contextWrite(job.routes().get(index)::into)
                .publishOn(job.emitOn(), TOKEN_WINDOW);
        Flux<TextDelta> text = TextStream.of(upstream, job.served().endpoint().tokenizer(), params.stop(), prompt.length,
                () -> metrics.cancellation("stop_string"));
        if (!job.echoes().isEmpty()) {
            // The prompt comes first, as its own delta of no tokens: the first chunk of a stream.
            text = Flux.just(new TextDelta(job.echoes().get(promptIndex), 0, List.of(), null, null)).concatWith(text);
        }
        if (job.toolsActive()) {
            // Tool calls are parsed from the whole output, so a choice's text is sent in one piece.
            text = text.reduce(TextDelta::append).flux();
        }
        return text.map(delta -> new Indexed(index, delta));
    }

    /**
     * {@code source}, failing with a {@link TimeoutException} if it has not terminated by {@code deadlineNanos}.
     * One timer per subscription, cancelled when the source ends: {@code Flux.timeout} with a fresh
     * {@code Mono.delay} per item would schedule (and usually wake a timer thread for) every token.
     */
    private static <T> Flux<T> withDeadline(Flux<T> source, long deadlineNanos) {
        return Flux.defer(() -> {
            Sinks.Empty<Void> expired = Sinks.empty();
            Mono<Void> deadline = expired.asMono();
            Disposable timer = Schedulers.parallel().schedule(expired::tryEmitEmpty,
                    Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
            return source.timeout(deadline, item -> deadline).doFinally(signal -> timer.dispose());
        });
    }

    private static String newId(String prefix) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        return prefix + Long.toHexString(random.nextLong() | Long.MIN_VALUE) + Long.toHexString(random.nextLong() | Long.MIN_VALUE);
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }

    /**
     * Per-request timing and token accounting. {@code onNext} is serialized (Reactive Streams rule §1.3); the end
     * is recorded once, whichever of complete, error or cancel comes first (a cancel may follow completion).
     */
    private final class Observer {
        private final AtomicBoolean finished = new AtomicBoolean();
        private final Job job;
        private final String model;
        private long lastTokenNanos;
        private int completionTokens;
        private int cachedTokens;
        /** Where {@link #cachedTokens} came from, by tier; null once a worker did not say. */
        private CacheSources sources = CacheSources.NONE;

        Observer(Job job) {
            this.job = job;
            this.model = job.served().name();
            metrics.started();
        }

        void onNext(Indexed indexed) {
            TextDelta delta = indexed.delta();
            if (delta.tokens() > 0) {
                long now = System.nanoTime();
                if (lastTokenNanos == 0) {
                    metrics.timeToFirstToken(model, seconds(now - job.startNanos()));
                } else {
                    metrics.interTokenLatency(model, seconds(now - lastTokenNanos));
                }
                lastTokenNanos = now;
            }
            if (delta.isLast()) {
                completionTokens += delta.usage().completionTokens();
                if (indexed.index() % job.params().n() == 0) {
                    cachedTokens += delta.usage().cachedTokens();
                    CacheSources more = delta.usage().sources();
                    sources = sources == null || more == null ? null : sources.plus(more);
                }
            }
        }

        TokenChunk.Usage usage() {
            return new TokenChunk.Usage(job.promptTokens(), completionTokens, cachedTokens, sources);
        }

        void onComplete() {
            if (finish(200)) {
                metrics.tokens(model, usage());
                for (RouteNote note : job.routes()) {
                    if (note.worker() != null) {
                        metrics.routed(model, note.worker().toString(), note.overlapBlocks(), note.migrations());
                    }
                }
            }
        }

        void onError(Throwable error) {
            finish(ApiException.from(error).error().httpStatus());
        }

        void onCancel() {
            if (finish(499)) {
                metrics.disconnect(job.route().label, model);
            }
        }

        private boolean finish(int status) {
            if (!finished.compareAndSet(false, true)) {
                return false;
            }
            long nanos = System.nanoTime() - job.startNanos();
            metrics.request(job.route().label, model, status, seconds(nanos));
            if (LOG.isDebugEnabled()) {
                LOG.debug("request route={} model={} status={} prompt_tokens={} completion_tokens={} seconds={}",
                        job.route().label, model, status, job.promptTokens(), completionTokens, seconds(nanos));
            }
            return true;
        }
    }
}

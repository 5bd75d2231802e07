package io.squall.gateway.routing;

import io.rsocket.RSocket;
import io.squall.functions.api.ErrorCode;
import io.squall.functions.api.GenerateRequest;
import io.squall.functions.api.GenerateService;
import io.squall.functions.api.StageException;
import io.squall.functions.api.TokenChunk;
import io.squall.functions.discovery.Discovery;
import io.squall.functions.discovery.DiscoveryEvent;
import io.squall.functions.discovery.InstanceId;
import io.squall.functions.discovery.WorkerInstance;
import io.squall.functions.discovery.WorkerRole;
import io.squall.gateway.ContextLength;
import io.squall.functions.api.rsocket.RSocketGenerateClient;
import io.squall.functions.api.auth.ClusterSecret;
import io.squall.functions.api.rsocket.StageConnections;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * The gateway's route to the workers of one model: each request goes to the discovered worker of that model
 * that serves {@code generate} (aggregated or decode, never prefill) which the {@link RoutingPolicy} picks, over
 * one shared RSocket-over-TCP connection per worker, opened on first use and closed when the worker has left
 * discovery and the streams on it have ended (a draining worker finishes them). No worker is a {@code NOT_FOUND}
 * error.
 *
 * <p>As a {@link ContextLength} it reports the smallest context those workers advertise, so a prompt the
 * gateway admits fits whichever of them the policy picks.
 *
 * <p><b>Migration</b> (DESIGN §7): when the connection to a worker is lost mid-stream, or a draining worker ends
 * a stream it could not finish in its grace period ({@code UNAVAILABLE} either way), the
 * request goes on on another worker as a continuation — the prompt plus the tokens already streamed, with the
 * remaining token budget — so the client's stream continues without a lost or repeated token; the final usage
 * still counts the original prompt and every generated token. At most {@value #MAX_MIGRATIONS} times per
 * request. Greedy output is exactly what one worker would have produced; seeded sampling restarts its random
 * stream on the new worker.
 *
 * <p><b>Scale-up</b>: a worker that joins takes over requests queued on the others that are still waiting for their
 * first token, the newest first, while that evens out the prompt tokens queued on each ({@link InFlight#takeFor}).
 * Such a request's stream is cancelled on its first worker (nothing of it having reached the caller) and starts
 * again on the new one, so a burst that queued on too few workers does not go on waiting after more have started.
 *
 * <p>Demand and cancellation pass through {@link RSocketGenerateClient} unchanged; nothing is buffered
 * here. Thread-safe.
 */
public final class RoutedGenerateService implements GenerateService, ContextLength, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RoutedGenerateService.class);
    private static final Comparator<WorkerInstance> BY_ID = Comparator.comparing(w -> w.id().toString());
    static final int MAX_MIGRATIONS = 3;

    private final Discovery discovery;
    private final String model;
    private final RoutingPolicy policy;
    private final InFlight inFlight = new InFlight();
    private final Map<InstanceId, Link> connections = new ConcurrentHashMap<>();
    private final Disposable watch;
    private final ClusterSecret secret;

    /** Routes requests for {@code model} to its workers by {@code policy}, which this service closes with itself, in an open cluster. */
    public RoutedGenerateService(Discovery discovery, String model, RoutingPolicy policy) {
        this(discovery, model, policy, ClusterSecret.open());
    }

    /**
     * Routes requests for {@code model} to its workers by {@code policy}, which this service closes with itself,
     * proving {@code secret} in the SETUP frame of each connection to a worker.
     */
    public RoutedGenerateService(Discovery discovery, String model, RoutingPolicy policy, ClusterSecret secret) {
        this.discovery = Objects.requireNonNull(discovery, "discovery");
        this.model = Objects.requireNonNull(model, "model");
        this.policy = Objects.requireNonNull(policy, "policy");
        this.secret = Objects.requireNonNull(secret, "secret");
        this.watch = discovery.watch()
                .retryWhen(Retry.backoff(Long.MAX_VALUE, Duration.ofMillis(100)))
                .subscribe(this::onEvent);
    }

    /**
     * One worker's shared connection and the streams this gateway has open on it. A worker that leaves discovery
     * gets no new streams; its connection closes once the streams on it have ended, so a draining worker can
     * finish them (one that crashed ends them itself: the lost connection migrates them).
     */
    private static final class Link {
        final Mono<RSocket> rsocket;
        final AtomicInteger streams = new AtomicInteger();
        volatile boolean retired;

        Link(Mono<RSocket> rsocket) {
            this.rsocket = rsocket;
        }

        void opened() {
            streams.incrementAndGet();
        }

        void closed() {
            if (streams.decrementAndGet() == 0 && retired) {
                dispose();
            }
        }

        void retire() {
            retired = true;
            if (streams.get() == 0) {
                dispose();
            }
        }

        void dispose() {
            rsocket.subscribe(RSocket::dispose, e -> { });
        }
    }

    private void onEvent(DiscoveryEvent event) {
        if (event instanceof DiscoveryEvent.Added added) {
            inFlight.reported(added.instance());
            if (generates(added.instance())) {
                // prompts queued behind others elsewhere start sooner on the worker that just joined (a scale-up)
                List<InFlight.Waiting> moving = inFlight.takeFor(added.instance().id());
                if (!moving.isEmpty()) {
                    LOG.info("{} joined: {} request(s) waiting for a first token elsewhere move to it",
                            added.instance().id(), moving.size());
                    moving.forEach(request -> request.moveTo(added.instance()));
                }
            }
        } else if (event instanceof DiscoveryEvent.Updated updated) {
            inFlight.reported(updated.instance());
        } else if (event instanceof DiscoveryEvent.Removed removed) {
            Link link = connections.remove(removed.id());
            if (link != null) {
                link.retire();
                LOG.debug("{} left discovery; its connection closes after {} open stream(s)",
                        removed.id(), link.streams.get());
            }
            policy.removed(removed.id());
            inFlight.forget(removed.id());
        }
    }

    /** The workers of this model that serve {@code generate}, in id order. */
    private Stream<WorkerInstance> generators() {
        return discovery.instances().stream().filter(this::generates).sorted(BY_ID);
    }

    private boolean generates(WorkerInstance worker) {
        return worker.role() != WorkerRole.PREFILL && worker.model().name().equals(model);
    }

    @Override
    public OptionalInt tokens() {
        return generators().mapToInt(w -> w.model().contextLength()).min();
    }

    @Override
    public Flux<TokenChunk> generate(GenerateRequest request) {
        return Flux.deferContextual(context -> attempt(request, new Progress(request, RouteNote.in(context)), Set.of()));
    }

    /** What one request has streamed so far, across the workers it ran on. */
    private static final class Progress {
        final GenerateRequest original;
        /** The caller's note of where the stream runs, or null. */
        final RouteNote note;
        int[] generated = new int[0];
        int migrations;

        Progress(GenerateRequest original, RouteNote note) {
            this.original = original;
            this.note = note;
        }

        void routed(RouteDecision decision) {
            if (note != null) {
                note.routed(decision, migrations > 0);
            }
        }

        void add(int[] tokens) {
            int n = generated.length;
            generated = Arrays.copyOf(generated, n + tokens.length);
            System.arraycopy(tokens, 0, generated, n, tokens.length);
        }

        /** The original request continued after the tokens generated so far. */
        GenerateRequest continuation() {
            int[] tokens = Arrays.copyOf(original.tokens(), original.tokens().length + generated.length);
            System.arraycopy(generated, 0, tokens, original.tokens().length, generated.length);
            return new GenerateRequest(original.requestId(), tokens, original.sampling(),
                    original.maxTokens() - generated.length, original.ignoreEos(), original.topLogprobs());
        }

        /** {@code chunk} with its usage counted against the original prompt. */
        TokenChunk restated(TokenChunk chunk) {
            if (migrations == 0 || chunk.usage() == null) {
                return chunk;
            }
            TokenChunk.Usage usage = chunk.usage();
            int cached = Math.min(usage.cachedTokens(), original.tokens().length);
            return new TokenChunk(chunk.tokenIds(), chunk.logprobs(), chunk.finishReason(), new TokenChunk.Usage(
                    original.tokens().length, generated.length, cached,
                    usage.sources() == null ? null : usage.sources().firstTokens(cached)));
        }
    }

    private Flux<TokenChunk> attempt(GenerateRequest request, Progress progress, Set<InstanceId> lost) {
        List<WorkerInstance> workers = generators().filter(w -> !lost.contains(w.id())).toList();
        if (workers.isEmpty()) {
            return Flux.error(new StageException(ErrorCode.NOT_FOUND, "no worker serves model '" + model + "'"));
        }
        return policy.choose(request, workers, inFlight).flatMapMany(decision -> {
            progress.routed(decision);
            return streamFrom(decision, request, progress, lost);
        });
    }

    private Flux<TokenChunk> streamFrom(RouteDecision decision, GenerateRequest request, Progress progress,
                                        Set<InstanceId> lost) {
        WorkerInstance worker = decision.worker();
        // the prompt tokens it computes, which queue on the worker until its first token comes back
        long uncached = Math.max(0, request.tokens().length
                - (long) Math.max(0, decision.overlapBlocks()) * worker.model().blockSize());
        InFlight.Waiting waiting = inFlight.prefillStarted(worker.id(), uncached);
        Flux<TokenChunk> here = send(decision, request, waiting)
                .doOnNext(chunk -> progress.add(chunk.tokenIds()))
                .map(progress::restated)
                // taken to move just as it failed here: it resumes on the joined worker below, not by migration too
                .onErrorResume(e -> waiting.wasMoved(), e -> Flux.empty())
                .onErrorResume(e -> migratable(e, progress), e -> {
                    progress.migrations++;
                    LOG.warn("lost worker {} after {} tokens of request {}; migrating ({})",
                            worker.id(), progress.generated.length, request.requestId(), e.getMessage());
                    Set<InstanceId> without = new HashSet<>(lost);
                    without.add(worker.id());
                    return attempt(progress.continuation(), progress, without);
                });
        // taken over by a worker that joined before its first token: nothing reached the caller, so it starts there
        return here.concatWith(Flux.defer(() -> !waiting.wasMoved() ? Flux.empty()
                : waiting.moved().flatMapMany(joined -> {
                    LOG.debug("request {} moves from {} to {}, which joined, before its first token",
                            request.requestId(), worker.id(), joined.id());
                    RouteDecision moved = new RouteDecision(joined, 0);
                    policy.moved(request, joined);
                    progress.routed(moved);
                    return streamFrom(moved, request, progress, lost);
                })));
    }

    private static boolean migratable(Throwable error, Progress progress) {
        return error instanceof StageException stage && stage.code() == ErrorCode.UNAVAILABLE
                && progress.migrations < MAX_MIGRATIONS
                && progress.generated.length < progress.original.maxTokens();
    }

    /** The worker's stream, ended early (and cancelled there) if {@code waiting} is taken to move before its first token. */
    private Flux<TokenChunk> send(RouteDecision decision, GenerateRequest request, InFlight.Waiting waiting) {
        WorkerInstance worker = decision.worker();
        // what the sequence holds once admitted: the prompt and its first output token, in the worker's blocks
        long blocks = worker.model().blocksFor(request.tokens().length + 1);
        inFlight.started(worker.id(), blocks);
        Link link = connection(worker);
        link.opened();
        // Released before the end reaches the subscriber (not after, as doFinally would), so a caller that
        // sends its next request on completion already sees this one gone; once, on end or cancel.
        AtomicBoolean released = new AtomicBoolean();
        Runnable release = () -> {
            if (released.compareAndSet(false, true)) {
                inFlight.prefillEnded(worker.id(), waiting);
                inFlight.finished(worker.id(), blocks);
                link.closed();
            }
        };
        return link.rsocket
                .flatMapMany(rsocket -> new RSocketGenerateClient(rsocket).generate(request))
                .filter(chunk -> inFlight.prefillEnded(worker.id(), waiting)) // false once taken to move
                .takeUntilOther(waiting.moved())
                .doOnTerminate(release)
                .doOnCancel(release);
    }

    private Link connection(WorkerInstance worker) {
        return connections.computeIfAbsent(worker.id(),
                id -> new Link(StageConnections.tcp(worker.host(), worker.rsocketPort(), secret)
                        .onErrorMap(e -> new StageException(ErrorCode.UNAVAILABLE,
                                "cannot connect to " + worker.id() + ": " + e.getMessage()))
                        .cacheInvalidateIf(RSocket::isDisposed)));
    }

    @Override
    public void close() {
        watch.dispose();
        connections.values().forEach(Link::dispose);
        connections.clear();
        policy.close();
    }
}

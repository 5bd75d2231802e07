package io.squall.gateway.routing;

import io.rsocket.RSocket;
import io.squall.functions.api.ErrorCode;
import io.squall.functions.api.GenerateRequest;
import io.squall.functions.api.GenerateService;
import io.squall.functions.api.StageException;
import io.squall.functions.api.TokenChunk;
import io.squall.functions.api.discovery.Discovery;
import io.squall.functions.api.discovery.DiscoveryEvent;
import io.squall.functions.api.discovery.InstanceId;
import io.squall.functions.api.discovery.WorkerInstance;
import io.squall.functions.api.discovery.WorkerRole;
import io.squall.functions.api.rsocket.RSocketGenerateClient;
import io.squall.functions.api.rsocket.StageConnections;
import io.squall.kvgrid.hash.BlockHasher;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The gateway's route to its workers: each request goes to the discovered worker that serves
 * {@code generate} (aggregated or decode, never prefill) which the {@link RoutingPolicy} picks, over one
 * shared RSocket-over-TCP connection per worker, opened on first use and closed when the worker leaves
 * discovery. No worker is a {@code NOT_FOUND} error.
 *
 * <p>Demand and cancellation pass through {@link RSocketGenerateClient} unchanged; nothing is buffered
 * here. Thread-safe.
 */
public final class RoutedGenerateService implements GenerateService, AutoCloseable {

    private static final System.Logger LOG = System.getLogger(RoutedGenerateService.class.getName());
    private static final Comparator<WorkerInstance> BY_ID = Comparator.comparing(w -> w.id().toString());

    private final Discovery discovery;
    private final RoutingPolicy policy;
    private final InFlight inFlight = new InFlight();
    private final Map<InstanceId, Mono<RSocket>> connections = new ConcurrentHashMap<>();
    private final Disposable watch;

    /** Routes by {@code policy}, which this service closes with itself. */
    public RoutedGenerateService(Discovery discovery, RoutingPolicy policy) {
        this.discovery = Objects.requireNonNull(discovery, "discovery");
        this.policy = Objects.requireNonNull(policy, "policy");
        this.watch = discovery.watch()
                .retryWhen(Retry.backoff(Long.MAX_VALUE, Duration.ofMillis(100)))
                .subscribe(this::onEvent);
    }

    private void onEvent(DiscoveryEvent event) {
        if (event instanceof DiscoveryEvent.Removed removed) {
            Mono<RSocket> connection = connections.remove(removed.id());
            if (connection != null) {
                connection.subscribe(RSocket::dispose, e -> { });
                LOG.log(System.Logger.Level.DEBUG, "closed the connection to {0}", removed.id());
            }
            policy.removed(removed.id());
            inFlight.forget(removed.id());
        }
    }

    @Override
    public Flux<TokenChunk> generate(GenerateRequest request) {
        return Flux.defer(() -> {
            List<WorkerInstance> workers = discovery.instances().stream()
                    .filter(w -> w.role() != WorkerRole.PREFILL)
                    .sorted(BY_ID)
                    .toList();
            if (workers.isEmpty()) {
                return Flux.error(new StageException(ErrorCode.NOT_FOUND, "no worker serves generate"));
            }
            return policy.choose(request, workers, inFlight).flatMapMany(worker -> send(worker, request));
        });
    }

    private Flux<TokenChunk> send(WorkerInstance worker, GenerateRequest request) {
        // the prompt's blocks and the first output block: what the sequence holds once admitted
        long blocks = request.tokens().length / BlockHasher.DEFAULT_BLOCK_SIZE + 1;
        inFlight.started(worker.id(), blocks);
        return connection(worker)
                .flatMapMany(rsocket -> new RSocketGenerateClient(rsocket).generate(request))
                .doFinally(signal -> inFlight.finished(worker.id(), blocks));
    }

    private Mono<RSocket> connection(WorkerInstance worker) {
        return connections.computeIfAbsent(worker.id(),
                id -> StageConnections.tcp(worker.host(), worker.rsocketPort())
                        .onErrorMap(e -> new StageException(ErrorCode.UNAVAILABLE,
                                "cannot connect to " + worker.id() + ": " + e.getMessage()))
                        .cacheInvalidateIf(RSocket::isDisposed));
    }

    @Override
    public void close() {
        watch.dispose();
        connections.values().forEach(c -> c.subscribe(RSocket::dispose, e -> { }));
        connections.clear();
        policy.close();
    }
}

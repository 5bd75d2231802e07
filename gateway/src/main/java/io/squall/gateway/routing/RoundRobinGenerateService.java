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
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The gateway's route to its workers when no KV-aware router is configured: each request goes to the
 * next discovered worker that serves {@code generate} (aggregated or decode), round robin, over one
 * shared RSocket-over-TCP connection per worker, opened on first use and closed when the worker leaves
 * discovery. No worker is a {@code NOT_FOUND} error.
 *
 * <p>Demand and cancellation pass through {@link RSocketGenerateClient} unchanged; nothing is buffered
 * here. Thread-safe.
 */
public final class RoundRobinGenerateService implements GenerateService, AutoCloseable {

    private static final System.Logger LOG = System.getLogger(RoundRobinGenerateService.class.getName());

    private final Discovery discovery;
    private final Map<InstanceId, Mono<RSocket>> connections = new ConcurrentHashMap<>();
    private final AtomicLong next = new AtomicLong();
    private final Disposable watch;

    public RoundRobinGenerateService(Discovery discovery) {
        this.discovery = Objects.requireNonNull(discovery, "discovery");
        this.watch = discovery.watch()
                .retryWhen(reactor.util.retry.Retry.backoff(Long.MAX_VALUE, Duration.ofMillis(100)))
                .subscribe(this::onEvent);
    }

    private void onEvent(DiscoveryEvent event) {
        if (event instanceof DiscoveryEvent.Removed removed) {
            Mono<RSocket> connection = connections.remove(removed.id());
            if (connection != null) {
                connection.subscribe(RSocket::dispose, e -> { });
                LOG.log(System.Logger.Level.DEBUG, "closed the connection to {0}", removed.id());
            }
        }
    }

    @Override
    public Flux<TokenChunk> generate(GenerateRequest request) {
        return Flux.defer(() -> {
            List<WorkerInstance> workers = discovery.instances().stream()
                    .filter(w -> w.role() != WorkerRole.PREFILL)
                    .sorted((a, b) -> a.id().toString().compareTo(b.id().toString()))
                    .toList();
            if (workers.isEmpty()) {
                return Flux.error(new StageException(ErrorCode.NOT_FOUND, "no worker serves generate"));
            }
            WorkerInstance worker = workers.get((int) Math.floorMod(next.getAndIncrement(), (long) workers.size()));
            return connection(worker).flatMapMany(rsocket -> new RSocketGenerateClient(rsocket).generate(request));
        });
    }

    private Mono<RSocket> connection(WorkerInstance worker) {
        Mono<RSocket> connection = connections.computeIfAbsent(worker.id(),
                id -> StageConnections.tcp(worker.host(), worker.rsocketPort())
                        .onErrorMap(e -> new StageException(ErrorCode.UNAVAILABLE,
                                "cannot connect to " + worker.id() + ": " + e.getMessage()))
                        .cacheInvalidateIf(RSocket::isDisposed));
        return connection;
    }

    @Override
    public void close() {
        watch.dispose();
        connections.values().forEach(c -> c.subscribe(RSocket::dispose, e -> { }));
        connections.clear();
    }
}

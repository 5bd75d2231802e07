package io.squall.functions.worker;

import io.prometheus.client.CollectorRegistry;
import io.rsocket.core.RSocketServer;
import io.rsocket.transport.netty.server.CloseableChannel;
import io.rsocket.transport.netty.server.TcpServerTransport;
import io.rsocket.transport.ServerTransport;
import io.squall.functions.api.ErrorCode;
import io.squall.functions.api.GenerateService;
import io.squall.functions.api.KvFetchService;
import io.squall.functions.api.PrefillService;
import io.squall.functions.api.StageException;
import io.squall.functions.api.auth.SetupVerifier;
import io.squall.functions.api.rsocket.StageServers;
import io.squall.functions.stage.ActiveStreams;
import io.squall.functions.discovery.Discovery;
import io.squall.functions.discovery.InstanceId;
import io.squall.functions.discovery.LoadReport;
import io.squall.functions.discovery.Registration;
import io.squall.functions.discovery.ServedModel;
import io.squall.functions.discovery.WorkerInstance;
import io.squall.functions.engine.batch.BatchScheduler;
import io.squall.functions.engine.batch.KvPool;
import io.squall.functions.worker.kv.KvConfig;
import io.squall.functions.worker.kv.KvPeers;
import io.squall.functions.worker.kv.KvSharing;
import io.squall.functions.worker.kv.LowerTierFetchService;
import io.squall.functions.worker.kv.RemoteBlockStore;
import io.squall.functions.worker.rsocket.RSocketKvPeers;
import io.squall.functions.worker.rsocket.RejectedConnections;
import io.squall.kvgrid.grid.GridBlockStore;
import io.squall.kvgrid.hash.BlockHasher;
import io.squall.kvgrid.metrics.prometheus.PrometheusKvStats;
import io.squall.functions.engine.batch.BatchStats;
import io.squall.functions.engine.model.ForwardPass;
import io.squall.functions.engine.tokenizer.Tokenizer;
import io.squall.functions.engine.tokenizer.Tokenizers;
import io.squall.functions.worker.local.SchedulerGenerateService;
import io.squall.functions.worker.metrics.MeteredGenerateService;
import io.squall.functions.worker.metrics.WorkerMetrics;
import io.squall.functions.worker.rsocket.StageResponder;
import io.squall.functions.worker.rsocket.StageServices;
import io.squall.functions.worker.disagg.PrefillStage;
import io.squall.functions.worker.disagg.PushReservations;
import io.squall.functions.worker.disagg.RemotePrefillRouter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One worker stage: its RSocket-over-TCP port, the RSocket acceptor its HTTP port's {@code /rsocket} serves,
 * the continuous-batching scheduler over its model, and its registration in discovery. The HTTP port itself
 * belongs to the stage's Micronaut server ({@code micronaut.WorkerApplication}).
 *
 * <p>Lifecycle: {@link #start(int)} binds the TCP port (while {@link #isReady()} is false, {@code /readyz}
 * says 503) and loads the model on a background thread; when the scheduler runs, the
 * routes of its role open ({@code kv.fetch} always; {@code generate} on aggregated and decode workers,
 * {@code kv.push} too on decode workers, which hand long prompts to prefill workers; {@code prefill} on
 * prefill workers), {@code /readyz} turns 200 and the worker
 * registers itself, and {@link #ready()} completes. With a block directory ({@link KvSharing}) the
 * worker also onboards prefixes that other workers offloaded, fetching them over {@code kv.fetch}.
 *
 * <p>Peers: with a {@link WorkerConfig#clusterSecret() cluster secret}, both RSocket listeners refuse a connection
 * whose SETUP frame does not prove it ({@link StageServers}); refusals are logged and counted in
 * {@code squall_stage_rejected_connections_total}. The worker's own connections to other workers prove it.
 *
 * <p>Shutdown: {@link #drain(Duration)} leaves discovery, refuses new {@code generate} and {@code prefill}
 * requests ({@code UNAVAILABLE}, which a gateway answers by routing elsewhere), lets open streams finish within
 * the grace period and ends the rest {@code UNAVAILABLE}, which the gateway migrates to another worker with the
 * tokens streamed so far; {@link #close()} then closes the TCP server, the scheduler and the engine (closing
 * without a drain cuts open streams the same way). Thread-safe.
 */
public final class Worker implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Worker.class);
    /** Longest wait to connect to another worker, and for one block fetched from it, on the offload thread. */
    private static final Duration KV_FETCH_TIMEOUT = Duration.ofSeconds(5);

    private final WorkerConfig config;
    private final ModelSource models;
    private final Discovery discovery;
    private final CollectorRegistry registry;
    private final WorkerMetrics metrics;
    private final InstanceId id;
    private final CompletableFuture<WorkerInstance> ready = new CompletableFuture<>();
    private final Object lock = new Object();
    private volatile StageServices services;
    private final StageResponder responder = new StageResponder(() -> services);
    private final RSocketServer server;
    private final ActiveStreams streams = new ActiveStreams(
            () -> new StageException(ErrorCode.UNAVAILABLE, "the worker is draining"),
            () -> new StageException(ErrorCode.UNAVAILABLE, "the worker shut down before the stream finished"));
    private CloseableChannel tcp;
    private int httpPort;
    private Engine engine;
    private BatchScheduler scheduler;
    private KvPool kv;
    private final KvSharing sharing;
    /** Other workers: to onboard blocks from (with a block directory), to prefill on, to push blocks to. */
    private final KvPeers peers;
    private Registration registration;
    private boolean closed;

    /** @param registry receives this worker's metrics and is what {@code /metrics} serves */
    public Worker(WorkerConfig config, ModelSource models, Discovery discovery, KvSharing sharing,
                  CollectorRegistry registry) {
        this.config = Objects.requireNonNull(config, "config");
        this.models = Objects.requireNonNull(models, "models");
        this.discovery = Objects.requireNonNull(discovery, "discovery");
        this.sharing = Objects.requireNonNull(sharing, "sharing");
        this.registry = Objects.requireNonNull(registry, "registry");
        this.metrics = new WorkerMetrics(registry);
        this.id = new InstanceId(config.namespace(), "worker", "generate", ThreadLocalRandom.current().nextLong() >>> 1);
        this.peers = new RSocketKvPeers(discovery, KV_FETCH_TIMEOUT, config.clusterSecret());
        this.server = StageServers.server(responder,
                new SetupVerifier(config.clusterSecret(), StageServers.PROOF_WINDOW, System::currentTimeMillis),
                new RejectedConnections("worker " + id, registry));
    }

    /**
     * Accepts the RSocket connections of the stage's {@code /rsocket} WebSocket: the same routes as the TCP port.
     */
    public ServerTransport.ConnectionAcceptor rsocketAcceptor() {
        return server.asConnectionAcceptor();
    }

    /**
     * Binds the RSocket TCP port and starts loading the model; returns once the port accepts connections.
     *
     * @param boundHttpPort the port the stage's HTTP server bound, which discovery advertises
     */
    public Worker start(int boundHttpPort) {
        synchronized (lock) {
            if (tcp != null || closed) {
                throw new IllegalStateException("a worker starts once");
            }
            httpPort = boundHttpPort;
            tcp = server.bind(TcpServerTransport.create(config.host(), config.rsocketPort()))
                    .block(Duration.ofSeconds(10));
        }
        Thread.ofPlatform().name("squall-worker-load").daemon(true).start(this::load);
        LOG.info("worker {} ({}) listening: http {}:{}, rsocket tcp {}:{}",
                id, config.role(), config.host(), httpPort(), config.host(), rsocketPort());
        return this;
    }

    private void load() {
        try {
            Engine opened = models.open();
            Tokenizer tokenizer = Tokenizers.fromGguf(opened.metadata());
            ForwardPass forwardPass = opened.forwardPass(config.maxPositions());
            String modelName = config.servedModelName() != null ? config.servedModelName() : opened.modelName();
            String salt = ServedModel.saltOf(modelName);
            KvPool pool = config.kv().open(forwardPass.kvLayout(config.kv().blockSize()),
                    BlockHasher.salted(config.kv().blockSize(), salt), id.workerId(), sharing.events(),
                    new PrometheusKvStats(registry), g4());
            BatchScheduler started = new BatchScheduler(forwardPass, config.batch(), tokenizer::isEndOfGeneration, pool);
            // What gateways and routers take from this worker: derived from what runs, not read from the model file.
            ServedModel served = new ServedModel(modelName, started.maxSequenceTokens(), config.kv().blockSize(), salt);
            WorkerConfig.Address advertised = config.advertisedRsocket() != null ? config.advertisedRsocket()
                    : new WorkerConfig.Address(config.advertisedHost(), rsocketPort());
            WorkerInstance instance = new WorkerInstance(id, config.role(), served, advertised.host(),
                    advertised.port(), httpPort(), config.batch().maxRunningSequences(), LoadReport.idle(config.kv().blocks()));
            synchronized (lock) {
                if (closed) {
                    started.close();
                    pool.close();
                    opened.close();
                    throw new IllegalStateException("the worker was closed while loading");
                }
                engine = opened;
                scheduler = started;
                kv = pool;
                metrics.observe(started::stats);
                services = services(started, pool, instance);
                registration = discovery.register(instance, () -> load(started.stats()));
            }
            LOG.info("worker {} ready: model {}, {}", id, instance.model(), opened.describe());
            ready.complete(instance);
        } catch (RuntimeException e) {
            LOG.error("worker " + id + " failed to start", e);
            ready.completeExceptionally(e);
        }
    }

    /** G4 as {@link KvSharing} says: the shared grid, other workers' lower tiers, or none without a cluster. */
    private KvConfig.G4 g4() {
        if (sharing.grid() != null) {
            return KvConfig.G4.shared(blockBytes -> new GridBlockStore(sharing.grid(), blockBytes));
        }
        return sharing.directory() == null ? null : KvConfig.G4.peers(blockBytes -> new RemoteBlockStore(
                sharing.directory()::locations, id.workerId(), peers, blockBytes, KV_FETCH_TIMEOUT));
    }

    /** The routes this worker's role serves: generate (aggregated, decode), prefill (prefill), kv.push (decode). */
    private StageServices services(BatchScheduler started, KvPool pool, WorkerInstance instance) {
        KvFetchService kvFetch = pool.offload() == null ? request -> Flux.empty() : new LowerTierFetchService(pool.offload());
        return switch (config.role()) {
            case AGGREGATED -> new StageServices(
                    drained(new MeteredGenerateService(new SchedulerGenerateService(started), metrics)), kvFetch, null, null);
            case PREFILL -> new StageServices(null, kvFetch,
                    drained(new PrefillStage(started, config.kv().blockSize(), peers, metrics)), null);
            case DECODE -> {
                PushReservations reservations = new PushReservations(metrics);
                RemotePrefillRouter router = new RemotePrefillRouter(instance, discovery, peers, reservations,
                        config.disaggregation(), metrics);
                yield new StageServices(drained(new MeteredGenerateService(new SchedulerGenerateService(started, router),
                        metrics)), kvFetch, null, reservations);
            }
        };
    }

    /** {@code generate} streams counted for the drain: refused while draining, cut at its deadline. */
    private GenerateService drained(GenerateService service) {
        return request -> streams.track(service.generate(request), chunk -> chunk.finishReason() != null);
    }

    /** {@code prefill} calls counted for the drain the same way. */
    private PrefillService drained(PrefillService service) {
        return request -> streams.track(service.prefill(request).flux(), result -> true).next();
    }

    private static LoadReport load(BatchStats s) {
        return new LoadReport(s.running(), s.waiting(), s.freeKvBlocks(), s.totalKvBlocks(), s.lastStepTokens());
    }

    /** Completes with the registered instance once the worker serves, or fails if loading failed. */
    public CompletableFuture<WorkerInstance> ready() {
        return ready.copy();
    }

    /** Whether the worker takes work: loaded, registered and not draining ({@code /readyz}). */
    public boolean isReady() {
        return services != null && !ready.isCompletedExceptionally() && !streams.draining();
    }

    /**
     * Drains the worker before it stops: leaves discovery (so routers stop choosing it), refuses new
     * {@code generate} and {@code prefill} requests with {@code UNAVAILABLE}, and completes once every open stream
     * ended, by itself within {@code grace} or cut with {@code UNAVAILABLE} when {@code grace} is over (the gateway
     * continues a cut stream on another worker). Other routes keep serving until {@link #close()}. Idempotent.
     *
     * @param grace how long open streams may run on; {@link Duration#ZERO} cuts them at once
     */
    public CompletableFuture<Void> drain(Duration grace) {
        Objects.requireNonNull(grace, "grace");
        synchronized (lock) {
            if (registration != null) {
                registration.close();
                registration = null;
                LOG.info("worker {} draining: left discovery, {} open stream(s), grace {} ms",
                        id, streams.open(), grace.toMillis());
            }
        }
        return streams.drain(grace);
    }

    /** The number of {@code generate} and {@code prefill} streams open now. */
    public int openStreams() {
        return streams.open();
    }

    public InstanceId id() {
        return id;
    }

    /** The HTTP port the worker advertises (its stage server's). */
    public int httpPort() {
        synchronized (lock) {
            return httpPort;
        }
    }

    /** The bound RSocket-over-TCP port. */
    public int rsocketPort() {
        synchronized (lock) {
            return tcp.address().getPort();
        }
    }

    /** The scheduler's latest stats. */
    public BatchStats stats() {
        synchronized (lock) {
            if (scheduler == null) {
                throw new IllegalStateException("the worker is not ready");
            }
            return scheduler.stats();
        }
    }

    @Override
    public void close() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            if (registration != null) {
                registration.close();
            }
            streams.drain(Duration.ZERO);
            streams.cutAll(); // what is still open ends UNAVAILABLE now, before the connections close
            services = null;
            if (tcp != null) {
                tcp.dispose();
                tcp.onClose().block(Duration.ofSeconds(5));
            }
            if (scheduler != null) {
                scheduler.close();
                kv.close();
            }
            if (engine != null) {
                engine.close();
            }
            peers.close();
        }
        LOG.info("worker {} stopped", id);
    }
}

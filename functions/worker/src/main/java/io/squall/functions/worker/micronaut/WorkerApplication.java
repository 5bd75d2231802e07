package io.squall.functions.worker.micronaut;

import io.prometheus.client.CollectorRegistry;
import io.squall.functions.discovery.Discovery;
import io.squall.functions.stage.StageEndpoints;
import io.squall.functions.stage.StageServer;
import io.squall.functions.worker.ModelSource;
import io.squall.functions.worker.Worker;
import io.squall.functions.worker.WorkerConfig;
import io.squall.functions.worker.kv.KvSharing;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A worker as a Micronaut application: a {@link StageServer} (its own application context and Netty server on
 * {@link WorkerConfig#httpPort()}) serving {@code /healthz}, {@code /readyz} (ready once the model is loaded and
 * until a drain starts), {@code /metrics} and {@code /rsocket}, around a {@link Worker}. {@link #stop(Duration)}
 * drains the worker, then stops the server and the worker. Several applications may run in one process.
 */
public final class WorkerApplication implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(WorkerApplication.class);
    /** How long past the grace period a drain may take to end the cut streams before the worker closes anyway. */
    private static final Duration CUT_ALLOWANCE = Duration.ofSeconds(5);

    private final StageServer server;
    private final Worker worker;

    private WorkerApplication(StageServer server, Worker worker) {
        this.server = server;
        this.worker = worker;
    }

    /** Starts the server and the worker; the model keeps loading in the background (see {@link Worker#ready()}). */
    public static WorkerApplication start(WorkerConfig config, ModelSource models, Discovery discovery) {
        return start(config, models, discovery, KvSharing.none());
    }

    /**
     * As {@link #start(WorkerConfig, ModelSource, Discovery)}, sharing the worker's KV blocks with the
     * cluster as {@code sharing} says (events published, other workers' blocks onboarded).
     */
    public static WorkerApplication start(WorkerConfig config, ModelSource models, Discovery discovery,
                                          KvSharing sharing) {
        Objects.requireNonNull(config, "config");
        CollectorRegistry registry = new CollectorRegistry(true);
        Worker worker = new Worker(config, models, discovery, sharing, registry);
        StageServer server = StageServer.start(new StageEndpoints(worker::isReady, () -> StageEndpoints.prometheus(registry),
                worker.rsocketAcceptor()), StageServer.listen(config.host(), config.httpPort()), config, worker);
        try {
            worker.start(server.port());
            return new WorkerApplication(server, worker);
        } catch (RuntimeException e) {
            server.close();
            worker.close();
            throw e;
        }
    }

    public Worker worker() {
        return worker;
    }

    /** The port of the worker's own HTTP server ({@code /healthz}, {@code /readyz}, {@code /metrics}, {@code /rsocket}). */
    public int port() {
        return server.port();
    }

    /**
     * Drains the worker ({@link Worker#drain(Duration)}: it leaves discovery, its open streams get {@code grace} to
     * finish and the rest migrate), then stops the server and the worker. This is what {@code SIGTERM} does to a
     * worker process.
     */
    public void stop(Duration grace) {
        try {
            worker.drain(grace).get(grace.plus(CUT_ALLOWANCE).toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("worker {}: the drain did not end cleanly ({}); closing", worker.id(), e);
        } finally {
            close();
        }
    }

    /** Stops at once: open streams are cut ({@code UNAVAILABLE}, so a gateway migrates them) and the worker closes. */
    @Override
    public void close() {
        try {
            worker.close();
        } finally {
            server.close();
        }
    }
}

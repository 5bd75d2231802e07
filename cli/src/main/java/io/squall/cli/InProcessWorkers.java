package io.squall.cli;

import io.squall.functions.discovery.WorkerRole;
import io.squall.functions.worker.Engine;
import io.squall.functions.worker.ModelSource;
import io.squall.functions.worker.WorkerConfig;
import io.squall.functions.worker.micronaut.WorkerApplication;
import io.squall.scheduler.Pool;
import io.squall.scheduler.connector.WorkerFactory;
import io.squall.scheduler.connector.WorkerHandle;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Starts workers in this JVM for a {@link io.squall.scheduler.connector.ManagedConnector}: how {@code squall planner
 * simulate} sizes dozens of mock workers without a process each. Stopping closes the worker: it leaves discovery
 * and its open streams end as a lost connection, which the gateway migrates to another worker.
 */
final class InProcessWorkers implements WorkerFactory {

    private final Engine engine;
    private final Cluster cluster;
    private final WorkerOptions stage;
    private final String modelId;
    private final AtomicInteger started = new AtomicInteger();

    /**
     * @param engine shared by every worker (a mock engine, whose forward passes are independent)
     * @param modelId the model id the workers advertise, which the gateway in front of them serves
     */
    InProcessWorkers(Engine engine, Cluster cluster, WorkerOptions stage, String modelId) {
        this.engine = engine;
        this.cluster = cluster;
        this.stage = stage;
        this.modelId = modelId;
    }

    @Override
    public WorkerHandle start(Pool pool) {
        WorkerConfig config = new WorkerConfig(WorkerRole.valueOf(pool.name()), "127.0.0.1", 0, 0, Cluster.NAME,
                stage.batch(), stage.kv("worker-" + started.incrementAndGet()), stage.context(), stage.disaggregation(),
                cluster.secret(), modelId, null);
        WorkerApplication worker = WorkerApplication.start(config, ModelSource.of(engine), cluster.discovery(),
                cluster.kvSharing());
        String address = "127.0.0.1:" + worker.worker().rsocketPort();
        return new WorkerHandle() {
            private CompletableFuture<Void> stopped;

            @Override
            public String address() {
                return address;
            }

            @Override
            public synchronized boolean alive() {
                return stopped == null || !stopped.isDone();
            }

            @Override
            public synchronized CompletableFuture<Void> stop() {
                if (stopped == null) {
                    stopped = CompletableFuture.runAsync(worker::close,
                            r -> Thread.ofPlatform().name("squall-worker-stop").daemon(true).start(r));
                }
                return stopped;
            }
        };
    }
}

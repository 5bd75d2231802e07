package io.squall.functions.worker.micronaut;

import io.micronaut.context.ApplicationContext;
import io.squall.functions.discovery.Discovery;
import io.squall.functions.worker.ModelSource;
import io.squall.functions.worker.Worker;
import io.squall.functions.worker.WorkerConfig;
import io.squall.functions.worker.kv.KvSharing;

import java.util.Objects;

/**
 * A worker as a Micronaut application: one {@link ApplicationContext} per worker holding its
 * configuration, model source, discovery and the beans of {@link WorkerFactory}. Closing stops the
 * context, which closes the worker. Several applications may run in one process.
 */
public final class WorkerApplication implements AutoCloseable {

    private final ApplicationContext context;
    private final Worker worker;

    private WorkerApplication(ApplicationContext context) {
        this.context = context;
        this.worker = context.getBean(Worker.class);
    }

    /** Starts the context and the worker; the model keeps loading in the background (see {@link Worker#ready()}). */
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
        Objects.requireNonNull(sharing, "sharing");
        Objects.requireNonNull(models, "models");
        Objects.requireNonNull(discovery, "discovery");
        ApplicationContext context = ApplicationContext.builder()
                .banner(false)
                .deduceEnvironment(false)
                .singletons(config, models, discovery, sharing)
                .start();
        try {
            return new WorkerApplication(context);
        } catch (RuntimeException e) {
            context.close();
            throw e;
        }
    }

    public Worker worker() {
        return worker;
    }

    @Override
    public void close() {
        context.close();
    }
}

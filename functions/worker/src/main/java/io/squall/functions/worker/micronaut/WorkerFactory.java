package io.squall.functions.worker.micronaut;

import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.prometheus.client.CollectorRegistry;
import io.squall.functions.discovery.Discovery;
import io.squall.functions.worker.ModelSource;
import io.squall.functions.worker.Worker;
import io.squall.functions.worker.kv.KvSharing;
import io.squall.functions.worker.WorkerConfig;
import jakarta.inject.Singleton;

/**
 * The worker's beans. {@link WorkerConfig}, {@link ModelSource}, {@link Discovery} and the {@link KvSharing} come from whoever
 * starts the context ({@link WorkerApplication}); this factory builds the metrics registry and the
 * started {@link Worker}, which the context closes on shutdown.
 */
@Factory
final class WorkerFactory {

    @Singleton
    CollectorRegistry registry() {
        return new CollectorRegistry(true);
    }

    @Singleton
    @Bean(preDestroy = "close")
    Worker worker(WorkerConfig config, ModelSource models, Discovery discovery, KvSharing sharing,
                  CollectorRegistry registry) {
        return new Worker(config, models, discovery, sharing, registry).start();
    }
}

package io.squall.gateway.routing;

import io.squall.functions.api.GenerateRequest;
import io.squall.functions.discovery.InstanceId;
import io.squall.functions.discovery.WorkerInstance;
import reactor.core.publisher.Mono;

import java.util.List;

/**
 * How {@link RoutedGenerateService} picks the worker for a request among the discovered workers that serve
 * {@code generate}. Implementations are thread-safe.
 */
public interface RoutingPolicy extends AutoCloseable {

    /**
     * The worker for {@code request}, chosen from {@code workers} (not empty, sorted by id) knowing what this
     * gateway already has in flight on each ({@code load}).
     */
    Mono<RouteDecision> choose(GenerateRequest request, List<WorkerInstance> workers, InFlight load);

    /**
     * {@code request}, which this policy routed, was moved before its first token to {@code joined}, a worker
     * that joined ({@link InFlight#takeFor}); its prompt is computed there instead.
     */
    default void moved(GenerateRequest request, WorkerInstance joined) {
    }

    /** {@code worker} left discovery. */
    default void removed(InstanceId worker) {
    }

    @Override
    default void close() {
    }
}

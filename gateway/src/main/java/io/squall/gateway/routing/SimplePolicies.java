package io.squall.gateway.routing;

import io.squall.functions.api.GenerateRequest;
import io.squall.functions.discovery.WorkerInstance;
import reactor.core.publisher.Mono;

import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/** The policies that ignore the KV cache: round robin, uniform random, and least loaded. */
final class SimplePolicies {

    private SimplePolicies() {
    }

    /** Each request to the next worker in id order. */
    static final class RoundRobin implements RoutingPolicy {
        private final AtomicLong next = new AtomicLong();

        @Override
        public Mono<RouteDecision> choose(GenerateRequest request, List<WorkerInstance> workers, InFlight load) {
            return Mono.just(RouteDecision.blind(workers.get((int) Math.floorMod(next.getAndIncrement(), (long) workers.size()))));
        }
    }

    /** A worker drawn uniformly. */
    static final class Random implements RoutingPolicy {
        private final SplittableRandom seed = new SplittableRandom();

        @Override
        public Mono<RouteDecision> choose(GenerateRequest request, List<WorkerInstance> workers, InFlight load) {
            int pick;
            synchronized (seed) {
                pick = seed.nextInt(workers.size());
            }
            return Mono.just(RouteDecision.blind(workers.get(pick)));
        }
    }

    /** The worker with the fewest sequences, then the fewest active KV blocks; ties in id order. */
    static final class LeastLoaded implements RoutingPolicy {
        @Override
        public Mono<RouteDecision> choose(GenerateRequest request, List<WorkerInstance> workers, InFlight load) {
            WorkerInstance best = workers.getFirst();
            for (WorkerInstance worker : workers) {
                long ds = load.sequences(worker) - load.sequences(best);
                if (ds < 0 || ds == 0 && load.activeBlocks(worker) < load.activeBlocks(best)) {
                    best = worker;
                }
            }
            return Mono.just(RouteDecision.blind(best));
        }
    }
}

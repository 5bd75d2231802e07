package io.squall.gateway.routing;

import io.squall.functions.discovery.WorkerInstance;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.WorkerId;
import io.squall.kvgrid.index.OverlapScores;

import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The KV-aware cost of DESIGN §6 and the pick by it, shared by the policies that learn overlaps from workers' KV
 * events ({@link KvRoutingPolicy}) and from their own decisions ({@link ApproximateKvPolicy}): each worker costs
 * {@code overlapWeight × prefillBlocks + decodeBlocks}; the lowest cost wins (ties: fewer sequences, then a
 * rotating start), or with a temperature a softmax over the negated costs picks. Thread-safe.
 */
final class KvCost {

    private final KvRoutingPolicy.Config config;
    private final AtomicLong rotation = new AtomicLong();
    private final SplittableRandom random = new SplittableRandom();

    KvCost(KvRoutingPolicy.Config config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    /** The worker of lowest cost, or one sampled by cost with a temperature, with the overlap it holds in G1. */
    RouteDecision pick(List<WorkerInstance> workers, InFlight load, OverlapScores scores) {
        WorkerInstance chosen = lowestCost(workers, load, scores);
        return new RouteDecision(chosen, scores.blocks(chosen.id().workerId(), Tier.G1));
    }

    private WorkerInstance lowestCost(List<WorkerInstance> workers, InFlight load, OverlapScores scores) {
        double[] costs = new double[workers.size()];
        for (int i = 0; i < costs.length; i++) {
            costs[i] = cost(workers.get(i), load, scores);
        }
        if (config.temperature() > 0) {
            return sample(workers, costs);
        }
        int start = (int) Math.floorMod(rotation.getAndIncrement(), (long) costs.length);
        int best = start;
        for (int k = 1; k < costs.length; k++) {
            int i = (start + k) % costs.length;
            if (costs[i] < costs[best]
                    || costs[i] == costs[best] && load.sequences(workers.get(i)) < load.sequences(workers.get(best))) {
                best = i;
            }
        }
        return workers.get(best);
    }

    /** {@code overlapWeight × prefill blocks + active blocks} of {@code worker} for the looked-up prompt. */
    double cost(WorkerInstance worker, InFlight load, OverlapScores scores) {
        WorkerId id = worker.id().workerId();
        int device = scores.blocks(id, Tier.G1);
        int local = scores.blocks(id, Tier.G3); // G1, G2 or G3: every tier the worker itself can onboard from
        double cached = device + config.lowerTierWeight() * (local - device);
        return config.overlapWeight() * (scores.promptBlocks() - cached) + load.activeBlocks(worker);
    }

    private WorkerInstance sample(List<WorkerInstance> workers, double[] costs) {
        double min = Double.MAX_VALUE;
        for (double cost : costs) {
            min = Math.min(min, cost);
        }
        double[] weights = new double[costs.length];
        double total = 0;
        for (int i = 0; i < costs.length; i++) {
            weights[i] = Math.exp(-(costs[i] - min) / config.temperature());
            total += weights[i];
        }
        double draw;
        synchronized (random) {
            draw = random.nextDouble() * total;
        }
        for (int i = 0; i < weights.length; i++) {
            draw -= weights[i];
            if (draw <= 0) {
                return workers.get(i);
            }
        }
        return workers.getLast();
    }
}

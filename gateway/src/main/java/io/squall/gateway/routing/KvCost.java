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
 * {@code overlapWeight × prefillBlocks + decodeBlocks}, or, given the workers' {@link WorkerLatency}, the
 * milliseconds the request would add to the latencies of all requests there ({@link #predictedMs}); the lowest cost
 * wins (ties: fewer sequences, then a rotating start), or with a temperature a softmax over the negated costs picks.
 * Thread-safe.
 *
 * <p>Why time and not blocks: a block to prefill and a block that decodes weigh the same in blocks, but with long
 * prompts recomputing a 12k-token history costs about a second of a worker while holding its blocks through a
 * decode step costs microseconds; counted in blocks, a worker decoding two long conversations looks busier than
 * re-prefilling a third one elsewhere, and a returning turn leaves the worker that holds its history.
 */
final class KvCost {

    /** Output tokens a request is costed for at most: {@code max_tokens} bounds an output, it does not forecast it. */
    static final int MAX_COSTED_OUTPUT = 1024;

    /**
     * The share of the request's output during which a sequence already decoding on the worker decodes beside it:
     * such a sequence is on average halfway through its own. Counted for the whole output, the slowdown sent returning
     * turns of the Mooncake conversation trace away from the workers holding their histories while 16 mock workers
     * were nearly idle (router efficiency 0.72 against 0.86), with the same latency under load.
     */
    static final double OVERLAP = 0.5;

    private final KvRoutingPolicy.Config config;
    private final AtomicLong rotation = new AtomicLong();
    private final SplittableRandom random = new SplittableRandom();

    KvCost(KvRoutingPolicy.Config config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    /** The worker of lowest cost, or one sampled by cost with a temperature, with the overlap it holds in G1. */
    RouteDecision pick(List<WorkerInstance> workers, InFlight load, OverlapScores scores, int maxTokens) {
        WorkerInstance chosen = lowestCost(workers, load, scores, maxTokens);
        return new RouteDecision(chosen, scores.blocks(chosen.id().workerId(), Tier.G1));
    }

    private WorkerInstance lowestCost(List<WorkerInstance> workers, InFlight load, OverlapScores scores, int maxTokens) {
        double busy = busyShare(workers, load);
        double[] costs = new double[workers.size()];
        for (int i = 0; i < costs.length; i++) {
            costs[i] = cost(workers.get(i), load, scores, maxTokens, busy);
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

    /** The share of {@code workers} that decode or prefill something: how likely worker time is wanted elsewhere. */
    static double busyShare(List<WorkerInstance> workers, InFlight load) {
        int busy = 0;
        for (WorkerInstance worker : workers) {
            if (load.sequences(worker) > 0 || load.prefilling(worker).requests() > 0) {
                busy++;
            }
        }
        return workers.isEmpty() ? 0 : busy / (double) workers.size();
    }

    /**
     * {@code worker}'s cost for the looked-up prompt: {@code overlapWeight × prefill blocks + active blocks}, or
     * its predicted milliseconds when the config has the workers' latency, with {@code busyShare} of the cluster's
     * workers at work ({@link #busyShare}).
     */
    double cost(WorkerInstance worker, InFlight load, OverlapScores scores, int maxTokens, double busyShare) {
        WorkerId id = worker.id().workerId();
        int device = scores.blocks(id, Tier.G1);
        int local = scores.blocks(id, Tier.G3); // G1, G2 or G3: every tier the worker itself can onboard from
        if (config.latency() == null) {
            double cached = device + config.lowerTierWeight() * (local - device);
            return config.overlapWeight() * (scores.promptBlocks() - cached) + load.activeBlocks(worker);
        }
        return predictedMs(config.latency(), worker, load, scores.promptBlocks() - local, local - device,
                scores.promptBlocks(), maxTokens, busyShare);
    }

    /**
     * The milliseconds the request adds to all requests' latencies on {@code worker}, as its speed predicts them.
     * Its own: the prompts sent there and not yet prefilled (as many prompts of their mean length), then bringing
     * back its {@code onboardBlocks} from the worker's lower tiers and prefilling its {@code prefillBlocks}, then its
     * output at the ITL of the batch it joins (one more sequence, the batch's mean context with its prompt added).
     * The others': each sequence decoding there waits through the steps that prefill its prompt (not through the
     * onboarding, a copy beside the steps), and decodes at that slower ITL while both run ({@link #OVERLAP} of its
     * output). Later requests': the worker time its prefill takes is time they may wait for, as likely as a worker is
     * at work ({@code busyShare}); without that term an idle worker's time looked free, and a returning turn left a
     * holder decoding one other sequence to recompute its history where decoding alone was a few percent faster.
     */
    static double predictedMs(WorkerLatency latency, WorkerInstance worker, InFlight load, int prefillBlocks,
                              int onboardBlocks, int promptBlocks, int maxTokens, double busyShare) {
        int blockSize = worker.model().blockSize();
        InFlight.Prefilling ahead = load.prefilling(worker);
        double queued = ahead.requests() == 0 ? 0
                : ahead.requests() * latency.prefillMs(ahead.tokens() / (double) ahead.requests());
        double own = prefillBlocks > 0 ? latency.prefillMs((double) prefillBlocks * blockSize) : 0;
        double onboard = onboardBlocks > 0 ? latency.onboardMs((double) onboardBlocks * blockSize) : 0;
        long sequences = load.sequences(worker);
        double active = load.activeBlocks(worker) * (double) blockSize;
        double context = (active + promptBlocks * (double) blockSize) / (sequences + 1);
        int tokens = Math.min(maxTokens, MAX_COSTED_OUTPUT);
        double itl = latency.itlMs(sequences + 1, context);
        double slower = sequences == 0 ? 0 : itl - latency.itlMs(sequences, active / sequences);
        return queued + onboard + own * (1 + busyShare) + tokens * itl
                + sequences * (own + OVERLAP * tokens * Math.max(0, slower));
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

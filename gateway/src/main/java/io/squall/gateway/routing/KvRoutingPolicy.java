package io.squall.gateway.routing;

import io.squall.functions.api.GenerateRequest;
import io.squall.functions.discovery.InstanceId;
import io.squall.functions.discovery.ServedModel;
import io.squall.functions.discovery.WorkerInstance;
import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent;
import io.squall.kvgrid.WorkerId;
import io.squall.kvgrid.grid.BlockDirectory;
import io.squall.kvgrid.grid.KvEventTopic;
import io.squall.kvgrid.index.ApplyOutcome;
import io.squall.kvgrid.index.KvIndexer;
import io.squall.kvgrid.index.OverlapScores;
import io.squall.kvgrid.index.flat.FlatRadixIndex;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * KV-cache-aware routing (DESIGN §6): the prompt's block hashes are looked up in a radix index that the
 * workers' KV events keep current, and each worker gets a cost ({@link KvCost}): in blocks,
 * {@code overlapWeight × prefillBlocks + decodeBlocks}, where {@code prefillBlocks} is the prompt's blocks
 * minus those the worker holds in G1 (and, counted at {@code lowerTierWeight}, in its G2/G3, which it
 * onboards instead of recomputing) and {@code decodeBlocks} its active KV blocks; or, given the workers'
 * {@link WorkerLatency}, in predicted milliseconds (where a G2/G3 block costs its copy back). The lowest cost
 * wins (ties: fewer sequences, then id order), or with a {@code temperature} a softmax over the negated costs
 * picks.
 *
 * <p>Events come from {@link KvEventTopic}; a gap in a worker's event ids is repaired with a snapshot from the
 * {@link BlockDirectory}, off the indexer thread. Until the repair lands the worker's entries may be stale,
 * which costs cache hits, never correctness: any worker can serve any request.
 */
public final class KvRoutingPolicy implements RoutingPolicy {

    private static final Logger LOG = LoggerFactory.getLogger(KvRoutingPolicy.class);

    /**
     * The router's weights. Block size and hash salt are not among them: each worker advertises its own in
     * discovery ({@link ServedModel}), and prompts are hashed as the candidate workers hash their blocks.
     *
     * @param overlapWeight   weight of prefill work against decode load (the cost in blocks)
     * @param lowerTierWeight how much a block in G2/G3 saves compared to one in G1 (0 to 1; the cost in blocks)
     * @param temperature     0 picks the lowest cost; above 0 samples from a softmax of the negated costs
     * @param latency         the workers' speed, to cost in predicted milliseconds; null costs in blocks
     */
    public record Config(double overlapWeight, double lowerTierWeight, double temperature, WorkerLatency latency) {
        public Config {
            if (overlapWeight < 0 || lowerTierWeight < 0 || lowerTierWeight > 1 || temperature < 0) {
                throw new IllegalArgumentException("router config out of range: overlapWeight=" + overlapWeight
                        + " lowerTierWeight=" + lowerTierWeight + " temperature=" + temperature);
            }
        }

        /** Overlap weight 1 (Dynamo's default), lower tiers at half, no sampling. */
        public static Config defaults() {
            return new Config(1.0, 0.5, 0.0, null);
        }

        /** This config costing in predicted milliseconds by {@code workers}' speed. */
        public Config withLatency(WorkerLatency workers) {
            return new Config(overlapWeight, lowerTierWeight, temperature, workers);
        }
    }

    private final KvCost cost;
    private final PromptHashing hashing = new PromptHashing();
    private final BlockDirectory directory;
    private final KvIndexer indexer;
    private final AutoCloseable subscription;
    private final Map<WorkerId, Long> latestEventIds = new ConcurrentHashMap<>();
    private final Set<WorkerId> repairing = ConcurrentHashMap.newKeySet();
    private final ExecutorService repairs = Executors.newSingleThreadExecutor(
            Thread.ofPlatform().name("squall-router-repair").daemon(true).factory());

    /** Follows {@code events} from the oldest batch the cluster still holds; repairs gaps from {@code directory}. */
    public KvRoutingPolicy(KvEventTopic events, BlockDirectory directory, Config config) {
        this.cost = new KvCost(Objects.requireNonNull(config, "config"));
        this.directory = Objects.requireNonNull(directory, "directory");
        this.indexer = new KvIndexer(new FlatRadixIndex(), KvIndexer.Config.DEFAULT, this::onGap);
        this.subscription = events.subscribe(this::onEvents);
    }

    private void onEvents(List<KvEvent> batch) {
        for (KvEvent event : batch) {
            latestEventIds.merge(event.worker(), event.eventId(), Math::max);
            while (!indexer.offer(event)) { // the index is behind: hold the topic's delivery thread briefly
                LockSupport.parkNanos(100_000);
            }
        }
    }

    private void onGap(ApplyOutcome.Gap gap) {
        WorkerId worker = gap.worker();
        if (!repairing.add(worker)) {
            return;
        }
        try {
            repairs.execute(() -> {
                try {
                    // Read the newest id before the directory: the snapshot then holds at least that event,
                    // and events after it that the index applies later only repeat what the snapshot says.
                    long last = latestEventIds.getOrDefault(worker, gap.received());
                    indexer.replace(directory.snapshot(worker, last)).get(30, TimeUnit.SECONDS);
                    LOG.info("KV index repaired for worker {} at event {}", worker, last);
                } catch (Exception e) {
                    if (repairs.isShutdown()) { // the router closed under the repair: nothing left to repair
                        LOG.debug("repairing the KV index for worker {} stopped: the router closed", worker);
                    } else {
                        LOG.warn("repairing the KV index for worker " + worker + " failed", e);
                    }
                } finally {
                    repairing.remove(worker);
                }
            });
        } catch (RejectedExecutionException closed) {
            repairing.remove(worker);
        }
    }

    /**
     * Scores the prompt hashed as the first candidate hashes its blocks. The candidates serve one model and so
     * share block size and salt; should one differ (say, mid-way through a rolling change of block size), none of
     * its blocks match these hashes and it is scored on its load alone.
     */
    @Override
    public Mono<RouteDecision> choose(GenerateRequest request, List<WorkerInstance> workers, InFlight load) {
        return lookup(workers.getFirst().model(), request.tokens())
                .map(scores -> cost.pick(workers, load, scores, request.maxTokens()));
    }

    /**
     * How many leading blocks of {@code tokens}, hashed as workers of {@code model} hash them, each worker holds,
     * per tier, as far as this router knows; when the index is too busy to answer, nobody is credited with any.
     */
    public Mono<OverlapScores> lookup(ServedModel model, int[] tokens) {
        BlockHash[] prompt = hashing.chain(model, tokens).hashes();
        if (prompt.length == 0) {
            return Mono.just(OverlapScores.none(0));
        }
        return Mono.fromFuture(() -> indexer.findMatches(prompt))
                .onErrorResume(RejectedExecutionException.class, busy -> Mono.just(OverlapScores.none(prompt.length)));
    }

    @Override
    public void removed(InstanceId worker) {
        latestEventIds.remove(worker.workerId());
        indexer.removeWorker(worker.workerId());
    }

    @Override
    public void close() {
        try {
            subscription.close();
        } catch (Exception e) {
            LOG.debug("closing the KV event subscription failed", e);
        }
        repairs.shutdownNow();
        indexer.close();
    }
}

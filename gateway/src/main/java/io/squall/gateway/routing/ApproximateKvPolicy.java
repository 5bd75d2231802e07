package io.squall.gateway.routing;

import io.squall.functions.api.GenerateRequest;
import io.squall.functions.discovery.InstanceId;
import io.squall.functions.discovery.WorkerInstance;
import io.squall.kvgrid.hash.BlockChain;
import io.squall.kvgrid.index.ApproximateIndex;
import io.squall.kvgrid.index.OverlapScores;
import io.squall.kvgrid.index.flat.FlatRadixIndex;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * KV-aware routing for workers that publish no KV events, as Dynamo's router offers with {@code --no-kv-events}
 * ({@code --router kv-approx}): the overlap index is learned from this router's own decisions. A prompt routed
 * to a worker is assumed to stay cached there for {@code ttl}; routing an overlapping prompt again refreshes the
 * shared blocks ({@link ApproximateIndex}). Workers are then scored by the same cost as {@link KvRoutingPolicy}.
 * It needs no cluster KV events or block directory, and it cannot know what a worker evicted early or what other
 * gateways sent it: an estimate, which costs cache hits when wrong, never correctness.
 *
 * <p>Threading: the index has one owner thread; {@link #choose} hashes on the caller's thread, then scores,
 * picks and records on the owner, so a decision and its record are never interleaved with another's.
 */
public final class ApproximateKvPolicy implements RoutingPolicy {

    /** How long a routed prefix is assumed to stay in a worker's G1 unless told otherwise. */
    public static final Duration DEFAULT_TTL = Duration.ofSeconds(120);

    private final KvCost cost;
    private final PromptHashing hashing = new PromptHashing();
    private final ApproximateIndex index;
    private final ExecutorService owner = Executors.newSingleThreadExecutor(
            Thread.ofPlatform().name("squall-router-approx").daemon(true).factory());

    /** @param clock what the TTL is measured by ({@link InstantSource#system()} outside tests) */
    public ApproximateKvPolicy(KvRoutingPolicy.Config config, Duration ttl, InstantSource clock) {
        this.cost = new KvCost(Objects.requireNonNull(config, "config"));
        this.index = new ApproximateIndex(new FlatRadixIndex(), ttl, clock);
    }

    @Override
    public Mono<RouteDecision> choose(GenerateRequest request, List<WorkerInstance> workers, InFlight load) {
        BlockChain prompt = hashing.chain(workers.getFirst().model(), request.tokens());
        return Mono.fromFuture(() -> CompletableFuture.supplyAsync(() -> {
            OverlapScores scores = prompt.size() == 0 ? OverlapScores.none(0) : index.findMatches(prompt.hashes());
            RouteDecision chosen = cost.pick(workers, load, scores, request.maxTokens());
            index.recordRouting(chosen.worker().id().workerId(), prompt);
            return chosen;
        }, owner));
    }

    /** The moved prompt will be cached where it is now computed (where it was first sent still ages out by TTL). */
    @Override
    public void moved(GenerateRequest request, WorkerInstance joined) {
        BlockChain prompt = hashing.chain(joined.model(), request.tokens());
        owner.execute(() -> index.recordRouting(joined.id().workerId(), prompt));
    }

    @Override
    public void removed(InstanceId worker) {
        owner.execute(() -> index.removeWorker(worker.workerId()));
    }

    @Override
    public void close() {
        owner.shutdownNow();
    }
}

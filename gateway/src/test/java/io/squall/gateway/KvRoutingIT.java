package io.squall.gateway;

import static io.squall.gateway.Conditions.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.squall.functions.api.GenerateRequest;
import io.squall.functions.api.SamplingOptions;
import io.squall.functions.api.TokenChunk;
import io.squall.functions.discovery.WorkerInstance;
import io.squall.functions.discovery.WorkerRole;
import io.squall.functions.discovery.Discovery;
import io.squall.functions.discovery.ServedModel;
import io.squall.functions.discovery.hazelcast.ClusterMember;
import io.squall.functions.engine.batch.BatchConfig;
import io.squall.functions.worker.ModelSource;
import io.squall.functions.worker.WorkerConfig;
import io.squall.functions.worker.kv.KvConfig;
import io.squall.functions.worker.kv.KvEventRelay;
import io.squall.functions.worker.kv.KvSharing;
import io.squall.functions.worker.micronaut.WorkerApplication;
import io.squall.gateway.routing.KvRoutingPolicy;
import io.squall.gateway.routing.RoutedGenerateService;
import io.squall.kvgrid.KvEvent;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.WorkerId;
import io.squall.kvgrid.grid.BlockDirectory;
import io.squall.kvgrid.grid.KvEventTopic;
import io.squall.kvgrid.hash.BlockChain;
import io.squall.kvgrid.hash.BlockHasher;
import io.squall.kvgrid.index.OverlapScores;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The KV-aware router against real workers: a Hazelcast member, discovery, two workers publishing their KV
 * events through the block directory and the event topic, the router following the topic.
 */
class KvRoutingIT {

    private static final int BLOCK = BlockHasher.DEFAULT_BLOCK_SIZE;
    /** A model whose blocks are hashed without salt, as {@code BlockHasher.of(BLOCK)} hashes them. */
    private static final ServedModel UNSALTED = new ServedModel("m", 1024, BLOCK, "");

    @TempDir
    Path dir;

    private ClusterMember cluster;
    private BlockDirectory directory;
    private KvEventTopic topic;

    @BeforeEach
    void startMember() {
        cluster = new ClusterMember(ClusterFixtures.member("kv-routing-it-"));
        directory = cluster.blockDirectory();
        topic = cluster.kvEventTopic();
    }

    @AfterEach
    void stopMember() {
        cluster.close();
    }

    @Test
    void requestsSharingAPrefixGoToTheWorkerThatHoldsItAndReuseItsBlocks() throws Exception {
        Path model = ClusterFixtures.smallLlama(dir.resolve("m.gguf"), 1024, 23);
        List<WorkerApplication> workers = new ArrayList<>();
        List<KvEventRelay> relays = new ArrayList<>();
        Discovery discovery = cluster.discovery();
        try (KvRoutingPolicy policy = new KvRoutingPolicy(topic, directory, KvRoutingPolicy.Config.defaults());
             RoutedGenerateService route = new RoutedGenerateService(discovery, "m", policy)) {
            for (int i = 0; i < 2; i++) {
                KvEventRelay relay = new KvEventRelay(cluster::publishKvEvents, 1024);
                relays.add(relay);
                WorkerApplication worker = WorkerApplication.start(WorkerConfig.loopback(WorkerRole.AGGREGATED,
                        BatchConfig.defaults(), KvConfig.inMemory(256)).withServedModelName("m"), ModelSource.file(model), discovery,
                        KvSharing.cluster(relay, directory));
                workers.add(worker);
                worker.worker().ready().get(60, TimeUnit.SECONDS);
            }
            await("both workers registered", () -> discovery.instances().size() == 2);
            ServedModel served = discovery.instances().getFirst().model();
            assertThat(served).as("what the workers advertise").isEqualTo(ServedModel.of("m", 1024, BLOCK));
            SplittableRandom random = new SplittableRandom(5);
            int[] prefix = tokens(random, 6 * BLOCK + 5);

            TokenChunk.Usage first = generate(route, "first", prefix);
            assertThat(first.cachedTokens()).isZero();
            await("the router learns which worker holds the prefix", () -> {
                OverlapScores scores = policy.lookup(served, prefix).block(Duration.ofSeconds(10));
                return scores.size() == 1 && scores.blocks(0, Tier.G1) == 6;
            });
            WorkerId holderId = policy.lookup(served, prefix).block(Duration.ofSeconds(10)).worker(0);
            WorkerInstance holder = discovery.instances().stream()
                    .filter(w -> w.id().workerId().equals(holderId)).findFirst().orElseThrow();

            for (int i = 0; i < 6; i++) {
                await("workers idle", () -> discovery.instances().stream().allMatch(w ->
                        w.load().activeSequences() == 0 && w.load().freeKvBlocks() == w.load().totalKvBlocks()));
                int[] prompt = concat(prefix, tokens(random, 1 + random.nextInt(40)));
                TokenChunk.Usage usage = generate(route, "follow-up-" + i, prompt);
                assertThat(usage.cachedTokens()).as("follow-up %d reuses the prefix's full blocks", i)
                        .isGreaterThanOrEqualTo(6 * BLOCK);
            }
            long servedByHolder = workers.stream()
                    .filter(w -> w.worker().id().equals(holder.id()))
                    .mapToLong(w -> w.worker().stats().generatedTokens()).sum();
            long servedByOther = workers.stream()
                    .filter(w -> !w.worker().id().equals(holder.id()))
                    .mapToLong(w -> w.worker().stats().generatedTokens()).sum();
            assertThat(servedByOther).as("the other worker served nothing").isZero();
            assertThat(servedByHolder).isPositive();
        } finally {
            workers.forEach(WorkerApplication::close);
            relays.forEach(KvEventRelay::close);
        }
    }

    @Test
    void aGapInAWorkersEventsIsRepairedFromTheBlockDirectory() {
        WorkerId worker = new WorkerId(0x5eed);
        BlockHasher hasher = BlockHasher.of(BLOCK);
        int[] prompt = tokens(new SplittableRandom(9), 5 * BLOCK);
        BlockChain chain = hasher.hash(prompt);
        List<KvEvent.StoredBlock> blocks = new ArrayList<>();
        for (int i = 0; i < chain.size(); i++) {
            blocks.add(new KvEvent.StoredBlock(chain.hash(i), chain.localHash(i)));
        }
        KvEvent.Stored lost = new KvEvent.Stored(worker, 1, null, blocks.subList(0, 3), Tier.G1);
        KvEvent.Stored seen = new KvEvent.Stored(worker, 2, chain.hash(2), blocks.subList(3, 5), Tier.G1);
        directory.apply(List.of(lost, seen));
        try (KvRoutingPolicy policy = new KvRoutingPolicy(topic, directory, KvRoutingPolicy.Config.defaults())) {
            topic.publish(List.of(seen)); // event 1 never reaches the router

            await("the snapshot restores the blocks of the lost event", () -> {
                OverlapScores scores = policy.lookup(UNSALTED, prompt).block(Duration.ofSeconds(10));
                return scores.size() == 1 && scores.blocks(worker, Tier.G1) == 5;
            });
        }
    }

    private static TokenChunk.Usage generate(RoutedGenerateService route, String id, int[] prompt) {
        List<TokenChunk> chunks = route.generate(new GenerateRequest(id, prompt, SamplingOptions.greedy(), 4, true, -1))
                .collectList().block(Duration.ofSeconds(60));
        return chunks.getLast().usage();
    }

    private static int[] tokens(SplittableRandom random, int n) {
        int[] tokens = new int[n];
        for (int i = 0; i < n; i++) {
            tokens[i] = 3 + random.nextInt(250);
        }
        return tokens;
    }

    private static int[] concat(int[] a, int[] b) {
        int[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}

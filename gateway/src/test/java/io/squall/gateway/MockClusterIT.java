package io.squall.gateway;

import static io.squall.gateway.Conditions.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.hazelcast.core.HazelcastInstance;
import io.squall.functions.discovery.ServedModel;
import io.squall.functions.discovery.WorkerRole;
import io.squall.functions.discovery.hazelcast.DiscoveryConfig;
import io.squall.functions.discovery.hazelcast.HazelcastDiscovery;
import io.squall.functions.engine.batch.BatchConfig;
import io.squall.functions.engine.gguf.GgufFile;
import io.squall.functions.engine.mock.StepTimingModel;
import io.squall.functions.worker.MockEngine;
import io.squall.functions.worker.ModelSource;
import io.squall.functions.worker.WorkerConfig;
import io.squall.functions.worker.kv.KvConfig;
import io.squall.functions.worker.kv.KvEventRelay;
import io.squall.functions.worker.kv.KvSharing;
import io.squall.functions.worker.micronaut.WorkerApplication;
import io.squall.functions.api.GenerateRequest;
import io.squall.functions.api.SamplingOptions;
import io.squall.functions.api.TokenChunk;
import io.squall.functions.discovery.InstanceId;
import io.squall.gateway.routing.KvRoutingPolicy;
import io.squall.gateway.routing.RouteNote;
import io.squall.gateway.routing.Routers;
import io.squall.gateway.routing.RoutedGenerateService;
import io.squall.kvgrid.grid.BlockDirectory;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.grid.KvEventTopic;
import io.squall.kvgrid.index.OverlapScores;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

/**
 * Eight mock workers (the real worker stage, scheduler, KV pool and KV events, with a timing model for the forward
 * pass) behind the real gateway and KV-aware router, over HTTP: what {@code squall serve --engine mock --workers 8}
 * runs, and what cluster-scale measurements stand on; and a burst queued on one mock worker, part of which a second
 * worker takes over when it joins.
 */
class MockClusterIT {

    private static final int WORKERS = 8;
    private static final ObjectMapper JSON = new ObjectMapper();
    /** 2 ms a step plus a little per row, run 10× faster than modelled: a quick test that still paces steps. */
    private static final StepTimingModel TIMING = new StepTimingModel(new int[] {1, 512}, new double[] {0.002, 0.02},
            1e-9, 1e-10);

    @TempDir
    Path dir;

    @Test
    void eightMockWorkersServeThroughTheKvRouterDeterministicallyAndFollowUpsLandWhereTheirPrefixIs() throws Exception {
        Path model = ClusterFixtures.smallLlama(dir.resolve("vocab.gguf"), 4096, 31);
        HazelcastInstance member = ClusterFixtures.member("mock-cluster-it-");
        BlockDirectory directory = new BlockDirectory(member);
        KvEventTopic topic = new KvEventTopic(member);
        List<WorkerApplication> workers = new ArrayList<>();
        KvEventRelay relay = new KvEventRelay(batch -> {
            directory.apply(batch);
            topic.publish(batch);
        }, 4096);
        MockEngine engine = MockEngine.open(model, TIMING, 10);
        try (HazelcastDiscovery discovery = new HazelcastDiscovery(member, DiscoveryConfig.defaults());
             KvRoutingPolicy policy = new KvRoutingPolicy(topic, directory, KvRoutingPolicy.Config.defaults());
             RoutedGenerateService route = new RoutedGenerateService(discovery.discovery(), "m", policy);
             GgufFile file = GgufFile.open(model)) {
            for (int i = 0; i < WORKERS; i++) {
                WorkerApplication worker = WorkerApplication.start(WorkerConfig.loopback(WorkerRole.AGGREGATED,
                        BatchConfig.defaults(), KvConfig.inMemory(512)).withServedModelName("m"), ModelSource.of(engine), discovery.discovery(),
                        KvSharing.cluster(relay, directory));
                workers.add(worker);
            }
            for (WorkerApplication worker : workers) {
                worker.worker().ready().get(60, TimeUnit.SECONDS);
            }
            await("all workers registered", () -> discovery.discovery().instances().size() == WORKERS);
            ServedModel served = discovery.discovery().instances().getFirst().model();
            try (GatewayServer gateway = GatewayServer.start(GatewayConfig.loopback(),
                    Map.of("m", ModelEndpoint.fromGguf(file.metadata(), route, route)))) {
                Http http = Http.to(gateway);
                SplittableRandom random = new SplittableRandom(12);
                // eight users, each with a system prefix of its own
                List<int[]> prefixes = IntStream.range(0, WORKERS).mapToObj(u -> random.ints(160, 3, 250).toArray()).toList();
                Map<Integer, String> firstWorker = new java.util.HashMap<>();
                Map<Integer, String> firstText = new java.util.HashMap<>();
                for (int u = 0; u < WORKERS; u++) {
                    JsonNode reply = complete(http, prefixes.get(u), 12);
                    assertThat(reply.at("/usage/completion_tokens").asInt()).isEqualTo(12);
                    firstWorker.put(u, reply.at("/routing/0/worker").asText());
                    firstText.put(u, reply.at("/choices/0/text").asText());
                }
                for (int[] prefix : prefixes) {
                    await("the router knows where every user's prefix is", () -> {
                        OverlapScores scores = policy.lookup(served, prefix).block();
                        return scores.size() == 1 && scores.blocks(0, Tier.G1) == 10;
                    });
                }
                Set<String> used = new HashSet<>(firstWorker.values());
                assertThat(used).as("load spread the first requests over the workers").hasSizeGreaterThan(1);
                for (int u = 0; u < WORKERS; u++) {
                    JsonNode again = complete(http, prefixes.get(u), 12);
                    assertThat(again.at("/choices/0/text").asText()).as("a repeated prompt, now served from cache, gives the same tokens")
                            .isEqualTo(firstText.get(u));
                    int[] followUp = IntStream.concat(IntStream.of(prefixes.get(u)), random.ints(20, 3, 250)).toArray();
                    // A load report taken while the repeat ran but arriving after it finished would weigh its blocks
                    // on the holder until the next report (InFlight cannot tell when a report was taken): wait for
                    // reports that show the repeat finished, as a next turn a moment later would see.
                    await("every worker reports no running sequence", () -> discovery.discovery().instances().stream()
                            .allMatch(w -> w.load().activeSequences() + w.load().queuedSequences() == 0));
                    JsonNode reply = complete(http, followUp, 4);
                    assertThat(reply.at("/routing/0/worker").asText()).as("user %d's follow-up goes to its prefix", u)
                            .isEqualTo(firstWorker.get(u));
                    assertThat(reply.at("/routing/0/overlap_blocks").asInt()).isGreaterThanOrEqualTo(10);
                    assertThat(reply.at("/usage/prompt_tokens_details/cached_tokens").asInt()).isGreaterThanOrEqualTo(160);
                }
                String metrics = http.get("/metrics").body();
                assertThat(metrics).contains("squall_router_decisions_total").contains("squall_router_overlap_blocks");
                JsonNode tokens = JSON.readTree(http.post("/tokenize", "{\"model\":\"m\",\"prompt\":\"Hello\"}").body());
                assertThat(tokens.get("count").asInt()).isEqualTo(tokens.get("tokens").size()).isPositive();
            }
        } finally {
            workers.forEach(WorkerApplication::close);
            relay.close();
            member.getLifecycleService().terminate();
        }
    }

    /** Prompt chunks of 512 rows take 0.3 s, decode rows next to nothing: one worker queues a burst of prompts. */
    private static final StepTimingModel SLOW_PREFILL = new StepTimingModel(new int[] {1, 512},
            new double[] {0.002, 0.3}, 0, 0);

    @Test
    void promptsQueuedOnOneWorkerMoveToAWorkerThatJoinsAndGiveTheSameTokens() throws Exception {
        Path model = ClusterFixtures.smallLlama(dir.resolve("vocab.gguf"), 4096, 31);
        HazelcastInstance member = ClusterFixtures.member("mock-scale-up-it-");
        MockEngine engine = MockEngine.open(model, SLOW_PREFILL, 1);
        List<WorkerApplication> workers = new ArrayList<>();
        try (HazelcastDiscovery discovery = new HazelcastDiscovery(member, DiscoveryConfig.defaults());
             RoutedGenerateService route = new RoutedGenerateService(discovery.discovery(), "m",
                     Routers.LEAST_LOADED.policy(() -> null))) {
            WorkerConfig config = WorkerConfig.loopback(WorkerRole.AGGREGATED, BatchConfig.defaults(),
                    KvConfig.inMemory(1024)).withServedModelName("m");
            workers.add(WorkerApplication.start(config, ModelSource.of(engine), discovery.discovery()));
            InstanceId first = workers.getFirst().worker().ready().get(60, TimeUnit.SECONDS).id();
            await("the first worker registered", () -> discovery.discovery().instances().size() == 1);

            // ten 1,024-token prompts at once: two 0.3 s steps each, one after another on the only worker
            SplittableRandom random = new SplittableRandom(41);
            List<int[]> prompts = IntStream.range(0, 10).mapToObj(i -> random.ints(1024, 3, 250).toArray()).toList();
            List<RouteNote> notes = new ArrayList<>();
            List<CompletableFuture<List<Integer>>> outputs = new ArrayList<>();
            for (int i = 0; i < prompts.size(); i++) {
                RouteNote note = new RouteNote();
                notes.add(note);
                outputs.add(tokens(route.generate(greedy("burst-" + i, prompts.get(i))).contextWrite(note::into)));
            }
            workers.add(WorkerApplication.start(config, ModelSource.of(engine), discovery.discovery()));
            InstanceId joined = workers.getLast().worker().ready().get(60, TimeUnit.SECONDS).id();

            List<List<Integer>> burst = new ArrayList<>();
            for (CompletableFuture<List<Integer>> output : outputs) {
                burst.add(output.get(60, TimeUnit.SECONDS));
            }
            Set<InstanceId> ranOn = notes.stream().map(RouteNote::worker).collect(Collectors.toSet());
            assertThat(ranOn).as("the joined worker took over some of the queued prompts").contains(first, joined);
            for (int i = 0; i < prompts.size(); i++) {
                assertThat(burst.get(i)).as("request %d, moved or not, gives the tokens it gives alone", i)
                        .isEqualTo(tokens(route.generate(greedy("again-" + i, prompts.get(i)))).get(60, TimeUnit.SECONDS));
            }
            await("both workers report no running or queued sequence", () -> discovery.discovery().instances()
                    .stream().allMatch(w -> w.load().activeSequences() + w.load().queuedSequences() == 0));
        } finally {
            workers.forEach(WorkerApplication::close);
            member.getLifecycleService().terminate();
        }
    }

    private static GenerateRequest greedy(String id, int[] prompt) {
        return new GenerateRequest(id, prompt, SamplingOptions.greedy(), 6, true, -1);
    }

    private static CompletableFuture<List<Integer>> tokens(Flux<TokenChunk> stream) {
        return stream.flatMapIterable(chunk -> IntStream.of(chunk.tokenIds()).boxed().toList()).collectList().toFuture();
    }

    private static JsonNode complete(Http http, int[] prompt, int maxTokens) throws Exception {
        String ids = IntStream.of(prompt).mapToObj(Integer::toString).collect(Collectors.joining(","));
        HttpResponse<String> response = http.post("/v1/completions", "{\"model\":\"m\",\"prompt\":[" + ids + "],"
                + "\"max_tokens\":" + maxTokens + ",\"temperature\":0,\"ignore_eos\":true,\"return_routing\":true}");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }
}

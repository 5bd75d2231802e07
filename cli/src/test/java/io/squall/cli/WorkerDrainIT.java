package io.squall.cli;

import com.hazelcast.core.HazelcastInstance;
import io.squall.functions.api.FinishReason;
import io.squall.functions.api.GenerateRequest;
import io.squall.functions.api.SamplingOptions;
import io.squall.functions.api.TokenChunk;
import io.squall.functions.discovery.FreePorts;
import io.squall.functions.discovery.InstanceId;
import io.squall.functions.discovery.WorkerInstance;
import io.squall.functions.discovery.WorkerRole;
import io.squall.functions.discovery.hazelcast.DiscoveryConfig;
import io.squall.functions.discovery.hazelcast.HazelcastDiscovery;
import io.squall.functions.api.rsocket.RSocketGenerateClient;
import io.squall.functions.api.rsocket.StageConnections;
import io.squall.functions.engine.batch.BatchConfig;
import io.squall.functions.engine.model.Architecture;
import io.squall.functions.engine.model.RandomModel;
import io.squall.functions.worker.ModelSource;
import io.squall.functions.worker.WorkerConfig;
import io.squall.functions.worker.kv.KvConfig;
import io.squall.functions.worker.micronaut.WorkerApplication;
import io.squall.gateway.routing.RouteDecision;
import io.squall.gateway.routing.RoutedGenerateService;
import io.squall.gateway.routing.RoutingPolicy;
import io.squall.kernels.GgmlType;
import io.squall.kvgrid.grid.GridConfig;
import io.squall.kvgrid.grid.GridMembers;
import io.rsocket.RSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code squall worker} as a separate JVM under streaming load gets SIGTERM (what Knative does to scale down): it
 * leaves discovery and drains, and every stream the gateway's router had on it completes, on it or migrated to the
 * other worker, with exactly the tokens of an uninterrupted greedy run.
 */
class WorkerDrainIT {

    private static final int MAX_TOKENS = 48;
    private static final int STREAMS = 4;
    private static final int TOKENS_BEFORE_SIGTERM = 4;

    @TempDir
    Path dir;

    @Test
    void sigtermDrainsEveryStreamToTheSameOutput() throws Exception {
        Path model = dir.resolve("m.gguf");
        RandomModel.write(new RandomModel.Spec(Architecture.LLAMA, new RandomModel.Shape(64, 2, 4, 4, 128, 512),
                GgmlType.F32, null, 77), model);
        int gridPort = FreePorts.one("127.0.0.1");
        HazelcastInstance member = GridMembers.start(new GridConfig(Cluster.NAME, "127.0.0.1", gridPort,
                List.of("127.0.0.1:" + gridPort), 1, 100_000));
        Path err = dir.resolve("worker.err");
        Process external = null;
        try (HazelcastDiscovery discovery = new HazelcastDiscovery(member, DiscoveryConfig.defaults());
             WorkerApplication local = WorkerApplication.start(WorkerConfig.loopback(WorkerRole.AGGREGATED,
                     BatchConfig.defaults(), KvConfig.inMemory(256)).withServedModelName("m"), ModelSource.file(model),
                     discovery.discovery())) {
            local.worker().ready().get(60, TimeUnit.SECONDS);
            InstanceId localId = local.worker().id();
            List<int[]> prompts = new ArrayList<>();
            List<List<Integer>> uninterrupted = new ArrayList<>();
            RSocket direct = StageConnections.tcp("127.0.0.1", local.worker().rsocketPort()).block(Duration.ofSeconds(10));
            for (int i = 0; i < STREAMS; i++) {
                prompts.add(new SplittableRandom(i).ints(20 + i, 3, 250).toArray());
                uninterrupted.add(tokens(new RSocketGenerateClient(direct).generate(request("ref-" + i, prompts.get(i)))
                        .collectList().block(Duration.ofSeconds(60))));
            }
            direct.dispose();

            external = new ProcessBuilder(SquallJar.command("worker", "--model", model.toString(),
                    "--join", "127.0.0.1:" + gridPort, "--kv-blocks", "256", "--drain-seconds", "3"))
                    .redirectOutput(dir.resolve("worker.out").toFile()).redirectError(err.toFile()).start();
            Process worker = external;
            await("the worker process registers", () -> discovery.discovery().instances().size() == 2 || !worker.isAlive());
            assertThat(worker.isAlive()).as(() -> read(err)).isTrue();
            List<InstanceId> routedTo = new CopyOnWriteArrayList<>();
            try (RoutedGenerateService route = new RoutedGenerateService(discovery.discovery(), "m",
                    preferOther(localId, routedTo))) {
                CountDownLatch started = new CountDownLatch(STREAMS);
                List<Stream> streams = new ArrayList<>();
                for (int i = 0; i < STREAMS; i++) {
                    Stream stream = new Stream(started);
                    streams.add(stream);
                    route.generate(request("drain-" + i, prompts.get(i))).subscribe(stream);
                }
                assertThat(started.await(60, TimeUnit.SECONDS)).as("every stream has its first tokens").isTrue();
                assertThat(routedTo).as("all went to the worker process").hasSize(STREAMS).doesNotContain(localId);

                worker.destroy(); // SIGTERM
                streams.get(0).requestAll(); // these two may finish on the draining worker within its grace period
                streams.get(1).requestAll();
                assertThat(worker.waitFor(60, TimeUnit.SECONDS)).as("the worker process exits").isTrue();
                streams.get(2).requestAll(); // these two had no demand during the grace period: they were cut
                streams.get(3).requestAll(); // and continue on the other worker

                for (int i = 0; i < STREAMS; i++) {
                    List<TokenChunk> chunks = streams.get(i).done.get(60, TimeUnit.SECONDS);
                    assertThat(tokens(chunks)).as("stream %d: no token lost or repeated", i).isEqualTo(uninterrupted.get(i));
                    assertThat(chunks.getLast().finishReason()).isEqualTo(FinishReason.LENGTH);
                    assertThat(chunks.getLast().usage().completionTokens()).isEqualTo(MAX_TOKENS);
                }
                assertThat(routedTo).as("the cut streams migrated to the other worker").contains(localId);
                // the worker's deregistration reaches this member's view as a Hazelcast event, after its exit
                await("the worker process is gone from discovery", () -> discovery.discovery().instances().size() == 1);
                assertThat(discovery.discovery().instances()).extracting(WorkerInstance::id).containsExactly(localId);
                assertThat(worker.exitValue()).as("exit status of SIGTERM after the shutdown hooks ran").isEqualTo(143);
                assertThat(read(err)).contains("draining").contains("stopped");
            }
        } finally {
            if (external != null) {
                external.destroyForcibly();
            }
            member.getLifecycleService().terminate();
        }
    }

    /** Asks for a few tokens, then waits for {@link #requestAll()}; collects every chunk. */
    private static final class Stream extends BaseSubscriber<TokenChunk> {
        final List<TokenChunk> chunks = new CopyOnWriteArrayList<>();
        final CompletableFuture<List<TokenChunk>> done = new CompletableFuture<>();
        private final CountDownLatch started;

        Stream(CountDownLatch started) {
            this.started = started;
        }

        @Override
        protected void hookOnSubscribe(Subscription subscription) {
            request(TOKENS_BEFORE_SIGTERM);
        }

        @Override
        protected void hookOnNext(TokenChunk chunk) {
            chunks.add(chunk);
            if (chunks.size() == TOKENS_BEFORE_SIGTERM) {
                started.countDown();
            }
        }

        @Override
        protected void hookOnComplete() {
            done.complete(chunks);
        }

        @Override
        protected void hookOnError(Throwable error) {
            done.completeExceptionally(error);
        }

        void requestAll() {
            requestUnbounded();
        }
    }

    /** The worker that is not {@code local} while there is one; records each choice. */
    private static RoutingPolicy preferOther(InstanceId local, List<InstanceId> routedTo) {
        return (request, workers, load) -> {
            WorkerInstance chosen = workers.stream().filter(w -> !w.id().equals(local)).findFirst().orElse(workers.getFirst());
            routedTo.add(chosen.id());
            return Mono.just(RouteDecision.blind(chosen));
        };
    }

    private static GenerateRequest request(String id, int[] prompt) {
        return new GenerateRequest(id, prompt, SamplingOptions.greedy(), MAX_TOKENS, true, -1);
    }

    private static List<Integer> tokens(List<TokenChunk> chunks) {
        List<Integer> ids = new ArrayList<>();
        chunks.forEach(c -> {
            for (int id : c.tokenIds()) {
                ids.add(id);
            }
        });
        return ids;
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("timed out waiting until %s", what).isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }
}

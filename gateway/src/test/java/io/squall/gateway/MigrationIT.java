package io.squall.gateway;

import static io.squall.gateway.Conditions.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.core.HazelcastInstance;
import io.squall.functions.api.FinishReason;
import io.squall.functions.api.GenerateRequest;
import io.squall.functions.api.SamplingOptions;
import io.squall.functions.api.TokenChunk;
import io.squall.functions.discovery.InstanceId;
import io.squall.functions.discovery.LoadReport;
import io.squall.functions.discovery.Registration;
import io.squall.functions.discovery.WorkerInstance;
import io.squall.functions.discovery.WorkerRole;
import io.squall.functions.discovery.hazelcast.DiscoveryConfig;
import io.squall.functions.discovery.hazelcast.HazelcastDiscovery;
import io.squall.functions.engine.batch.BatchConfig;
import io.squall.functions.worker.ModelSource;
import io.squall.functions.worker.WorkerConfig;
import io.squall.functions.worker.kv.KvConfig;
import io.squall.functions.worker.micronaut.WorkerApplication;
import io.squall.gateway.routing.RoutedGenerateService;
import io.squall.gateway.routing.RouteDecision;
import io.squall.gateway.routing.RoutingPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;

/**
 * A worker lost mid-stream: the gateway reaches one worker through a TCP relay that the test cuts after some
 * tokens, as a crash or a partition would; the request must go on on the other worker with no token lost or
 * repeated.
 */
class MigrationIT {

    private static final int MAX_TOKENS = 60;
    private static final int CUT_AFTER = 17;

    @TempDir
    Path dir;

    @Test
    void aStreamCutMidwayContinuesOnAnotherWorkerWithTheSameTokens() throws Exception {
        Path model = ClusterFixtures.smallLlama(dir.resolve("m.gguf"), 1024, 31);
        HazelcastInstance member = ClusterFixtures.member("migration-it-");
        List<InstanceId> routedTo = new CopyOnWriteArrayList<>();
        try (HazelcastDiscovery discovery = new HazelcastDiscovery(member, DiscoveryConfig.defaults());
             WorkerApplication worker = WorkerApplication.start(WorkerConfig.loopback(WorkerRole.AGGREGATED,
                     BatchConfig.defaults(), KvConfig.inMemory(256)), ModelSource.file(model), discovery.discovery())) {
            WorkerInstance direct = worker.worker().ready().get(60, TimeUnit.SECONDS);
            try (Relay relay = new Relay(worker.worker().rsocketPort());
                 Registration viaRelay = discovery.discovery().register(new WorkerInstance(
                         new InstanceId("squall", "worker", "generate", 0xdead), WorkerRole.AGGREGATED, direct.model(),
                         "127.0.0.1", relay.port(), worker.worker().httpPort(), 8, LoadReport.idle(256)),
                         () -> LoadReport.idle(256));
                 RoutedGenerateService route = new RoutedGenerateService(discovery.discovery(), direct.model().name(),
                         preferRelay(viaRelay.id(), routedTo))) {
                await("the relay is discovered", () -> discovery.discovery().instances().size() == 2);
                int[] prompt = new SplittableRandom(3).ints(40, 3, 250).toArray();

                List<Integer> uninterrupted = tokens(route.generate(request("direct", prompt)).collectList()
                        .block(Duration.ofSeconds(60)));

                List<TokenChunk> chunks = new CopyOnWriteArrayList<>();
                route.generate(request("migrated", prompt))
                        .limitRate(1) // one token of demand at a time: the worker cannot run ahead of the cut
                        .doOnNext(chunk -> {
                            chunks.add(chunk);
                            if (chunks.size() == CUT_AFTER) {
                                relay.cut();
                            }
                        })
                        .blockLast(Duration.ofSeconds(60));

                assertThat(relay.cuts()).as("the relay was cut mid-stream").isOne();
                assertThat(routedTo).as("routed through the relay, then migrated to the worker itself")
                        .containsExactly(viaRelay.id(), worker.worker().id());
                assertThat(tokens(chunks)).as("no token lost or repeated").isEqualTo(uninterrupted);
                TokenChunk.Usage usage = chunks.getLast().usage();
                assertThat(usage.promptTokens()).isEqualTo(prompt.length);
                assertThat(usage.completionTokens()).isEqualTo(MAX_TOKENS);
                assertThat(chunks.getLast().finishReason()).isEqualTo(FinishReason.LENGTH);
            }
        } finally {
            member.getLifecycleService().terminate();
        }
    }

    /**
     * Sends the "migrated" request through the relay while the relay is a candidate, everything else to the worker
     * itself; records where "migrated" went.
     */
    private static RoutingPolicy preferRelay(InstanceId relay, List<InstanceId> routedTo) {
        return (request, workers, load) -> {
            boolean viaRelay = request.requestId().equals("migrated");
            WorkerInstance chosen = workers.stream().filter(w -> w.id().equals(relay) == viaRelay)
                    .findFirst().orElse(workers.getFirst());
            if (viaRelay) {
                routedTo.add(chosen.id());
            }
            return Mono.just(new RouteDecision(chosen, RouteDecision.UNKNOWN));
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

    /** A loopback TCP relay to {@code target} that the test can cut, closing every connection it carries. */
    private static final class Relay implements AutoCloseable {
        private final ServerSocket server = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
        private final List<Socket> sockets = new CopyOnWriteArrayList<>();
        private final int target;
        private volatile int cuts;

        Relay(int target) throws IOException {
            this.target = target;
            Thread.ofPlatform().daemon().name("relay-accept").start(this::accept);
        }

        int port() {
            return server.getLocalPort();
        }

        int cuts() {
            return cuts;
        }

        void cut() {
            cuts++;
            for (Socket socket : sockets) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // already closed
                }
            }
        }

        private void accept() {
            while (!server.isClosed()) {
                try {
                    Socket in = server.accept();
                    Socket out = new Socket(InetAddress.getLoopbackAddress(), target);
                    sockets.add(in);
                    sockets.add(out);
                    pump(in, out);
                    pump(out, in);
                } catch (IOException e) {
                    return;
                }
            }
        }

        private static void pump(Socket from, Socket to) {
            Thread.ofPlatform().daemon().name("relay-pump").start(() -> {
                byte[] buffer = new byte[8192];
                try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                    for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                        out.write(buffer, 0, n);
                        out.flush();
                    }
                } catch (IOException closed) {
                    // the other side or a cut closed the connection
                }
                try {
                    to.close();
                } catch (IOException ignored) {
                    // already closed
                }
            });
        }

        @Override
        public void close() throws IOException {
            cut();
            server.close();
        }
    }
}

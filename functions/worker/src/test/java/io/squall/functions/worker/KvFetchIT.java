package io.squall.functions.worker;

import com.hazelcast.core.HazelcastInstance;
import io.netty.buffer.Unpooled;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketServer;
import io.rsocket.transport.netty.server.CloseableChannel;
import io.rsocket.transport.netty.server.TcpServerTransport;
import io.rsocket.util.ByteBufPayload;
import io.squall.functions.api.GenerateRequest;
import io.squall.functions.api.KvBlockFrame;
import io.squall.functions.api.KvFetchRequest;
import io.squall.functions.api.SamplingOptions;
import io.squall.functions.api.codec.WireFormat;
import io.squall.functions.discovery.InstanceId;
import io.squall.functions.discovery.LoadReport;
import io.squall.functions.discovery.Registration;
import io.squall.functions.discovery.ServedModel;
import io.squall.functions.discovery.WorkerInstance;
import io.squall.functions.discovery.WorkerRole;
import io.squall.functions.discovery.hazelcast.DiscoveryConfig;
import io.squall.functions.discovery.hazelcast.HazelcastDiscovery;
import io.squall.functions.engine.batch.BatchConfig;
import io.squall.functions.engine.generate.Generator;
import io.squall.functions.engine.model.Architecture;
import io.squall.functions.engine.model.Model;
import io.squall.functions.engine.model.RandomModel;
import io.squall.functions.engine.model.Transformer;
import io.squall.functions.engine.sampling.Sampler;
import io.squall.functions.engine.sampling.SamplingParams;
import io.squall.functions.worker.kv.KvConfig;
import io.squall.functions.worker.kv.KvEventRelay;
import io.squall.functions.worker.kv.KvSharing;
import io.squall.functions.worker.micronaut.WorkerApplication;
import io.squall.kernels.GgmlType;
import io.squall.kernels.Kernels;
import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.WorkerId;
import io.squall.kvgrid.grid.BlockDirectory;
import io.squall.kvgrid.grid.BlockLocation;
import io.squall.kvgrid.grid.GridConfig;
import io.squall.kvgrid.grid.GridMembers;
import io.squall.kvgrid.hash.BlockHasher;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import static io.squall.functions.worker.ItSupport.awaitTrue;
import static io.squall.functions.worker.ItSupport.freePort;
import static io.squall.functions.worker.ItSupport.concat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Cross-worker prefix onboarding over {@code kv.fetch}: two real workers (RSocket over loopback) on one
 * Hazelcast member sharing discovery and the block directory, and a third that keeps to its own tiers.
 */
class KvFetchIT {

    private static final Logger LOG = LoggerFactory.getLogger(KvFetchIT.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final BatchConfig BATCH = new BatchConfig(4, 64, true, 16, true);
    private static final int BLOCK = 16;
    /** A: 12 G1 pages, so one 11-block prompt evicts the last one's blocks to its 1 MiB G2. */
    private static final KvConfig KV_A = new KvConfig(12, BLOCK, 1 << 20, null, 0);
    /** B: G1 only; the prefix comes from A. */
    private static final KvConfig KV_B = new KvConfig(64, BLOCK, 0, null, 0);
    private static final int OUTPUT = 6;

    @TempDir
    static Path dir;

    private static Path modelFile;
    private static HazelcastInstance member;
    private static HazelcastDiscovery discovery;
    private static BlockDirectory directory;
    private static KvEventRelay relay;
    private static WorkerApplication a;
    private static WorkerApplication b;
    /** Keeps to its own tiers ({@link KvSharing#ownTiers}): publishes its blocks, fetches nobody's. */
    private static WorkerApplication own;
    private static SplittableRandom random;

    @BeforeAll
    static void start() throws Exception {
        long seed = System.nanoTime();
        LOG.info("KvFetchIT seed={}", seed);
        random = new SplittableRandom(seed);
        modelFile = dir.resolve("m.gguf");
        RandomModel.write(new RandomModel.Spec(Architecture.LLAMA, new RandomModel.Shape(64, 2, 4, 2, 96, 512),
                GgmlType.Q8_0, null, 11), modelFile);
        int port = freePort();
        member = GridMembers.start(new GridConfig("kv-fetch-it-" + port, "127.0.0.1", port,
                List.of("127.0.0.1:" + port), 1, 1000));
        discovery = new HazelcastDiscovery(member, DiscoveryConfig.defaults());
        directory = new BlockDirectory(member);
        relay = new KvEventRelay(directory::apply, 1024);
        KvSharing sharing = KvSharing.cluster(relay, directory);
        a = WorkerApplication.start(WorkerConfig.loopback(WorkerRole.AGGREGATED, BATCH, KV_A), ModelSource.file(modelFile),
                discovery.discovery(), sharing);
        b = WorkerApplication.start(WorkerConfig.loopback(WorkerRole.AGGREGATED, BATCH, KV_B), ModelSource.file(modelFile),
                discovery.discovery(), sharing);
        own = WorkerApplication.start(WorkerConfig.loopback(WorkerRole.AGGREGATED, BATCH, KV_B), ModelSource.file(modelFile),
                discovery.discovery(), KvSharing.ownTiers(relay));
        a.worker().ready().get(60, TimeUnit.SECONDS);
        b.worker().ready().get(60, TimeUnit.SECONDS);
        own.worker().ready().get(60, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stop() {
        own.close();
        b.close();
        a.close();
        relay.close();
        discovery.close();
        member.getLifecycleService().terminate();
    }

    @Test
    void aPrefixComputedOnOneWorkerIsOnboardedByAnotherInsteadOfRecomputed() {
        int[] prompt = tokens(10 * BLOCK);
        generate(a.worker(), prompt);
        generate(a.worker(), tokens(11 * BLOCK)); // evicts the prompt's blocks from A's G1 to its G2
        WorkerId holder = a.worker().id().workerId();
        BlockHash[] hashes = hasher(a).hash(prompt).hashes();
        awaitTrue(() -> Arrays.stream(hashes).allMatch(
                hash -> directory.locations(hash).contains(new BlockLocation(holder, Tier.G2))));

        int[] extended = concat(prompt, tokens(BLOCK + 5));
        ItSupport.Generated onB = generate(b.worker(), extended);

        assertThat(onB.usage().cachedTokens()).isEqualTo(prompt.length);
        assertThat(onB.tokens()).containsExactly(greedy(extended));
    }

    @Test
    void aWorkerOnItsOwnTiersRecomputesAnotherWorkersPrefixAndStillPublishesItsBlocks() {
        int[] prompt = tokens(10 * BLOCK);
        generate(a.worker(), prompt);
        WorkerId holder = a.worker().id().workerId();
        BlockHash[] hashes = hasher(a).hash(prompt).hashes();
        awaitTrue(() -> Arrays.stream(hashes).allMatch(hash -> directory.locations(hash).stream()
                .anyMatch(location -> location.worker().equals(holder))));

        int[] extended = concat(prompt, tokens(BLOCK + 5));
        ItSupport.Generated onOwn = generate(own.worker(), extended);

        assertThat(onOwn.usage().cachedTokens()).isZero();
        assertThat(onOwn.tokens()).containsExactly(greedy(extended));
        WorkerId self = own.worker().id().workerId();
        awaitTrue(() -> Arrays.stream(hasher(own).hash(extended).hashes()).allMatch(
                hash -> directory.locations(hash).contains(new BlockLocation(self, Tier.G1))));
    }

    @Test
    void corruptAndTornTransfersFallBackToRecomputingTheSameOutput() throws Exception {
        long blockBytes = 2L * 2 * BLOCK * 2 * 16 * Float.BYTES; // layers · K|V · slots · kvHeads · headDim · F32
        AtomicInteger asked = new AtomicInteger();
        List<Function<KvFetchRequest, Flux<Payload>>> faults = List.of(
                request -> Flux.just(frame(corrupted(request, blockBytes))),
                request -> {
                    byte[] whole = WireFormat.encode(valid(request, blockBytes));
                    return Flux.just(frame(Arrays.copyOf(whole, whole.length / 2)));
                },
                request -> Flux.error(new IllegalStateException("the peer's stream broke off")));
        for (Function<KvFetchRequest, Flux<Payload>> fault : faults) {
            int[] prompt = tokens(4 * BLOCK);
            try (FakePeer peer = FakePeer.start(fault, asked)) {
                for (BlockHash hash : hasher(b).hash(prompt).hashes()) {
                    directory.add(hash, new BlockLocation(peer.id.workerId(), Tier.G2));
                }
                int before = asked.get();
                ItSupport.Generated onB = generate(b.worker(), prompt);

                assertThat(asked.get()).as("the peer was asked").isGreaterThan(before);
                assertThat(onB.usage().cachedTokens()).isZero();
                assertThat(onB.tokens()).containsExactly(greedy(prompt));
            }
        }
    }

    /** How {@code worker} names its blocks, as it advertises: its block size, salted by its model. */
    private static BlockHasher hasher(WorkerApplication worker) {
        return worker.worker().ready().join().model().blockHasher();
    }

    /** A worker in discovery whose {@code kv.fetch} answers with {@code fault}. */
    private record FakePeer(InstanceId id, CloseableChannel server, Registration registration) implements AutoCloseable {

        static FakePeer start(Function<KvFetchRequest, Flux<Payload>> fault, AtomicInteger asked) {
            CloseableChannel server = RSocketServer.create(SocketAcceptor.forRequestStream(payload -> {
                        try {
                            asked.incrementAndGet();
                            return fault.apply(WireFormat.decodeKvFetchRequest(payload.getData()));
                        } finally {
                            payload.release();
                        }
                    }))
                    .bind(TcpServerTransport.create("127.0.0.1", 0))
                    .block(TIMEOUT);
            InstanceId id = new InstanceId("squall", "worker", "generate", random.nextLong() >>> 1);
            WorkerInstance instance = new WorkerInstance(id, WorkerRole.AGGREGATED, ServedModel.of("fake", 512, BLOCK), "127.0.0.1",
                    server.address().getPort(), 1, 1, LoadReport.idle(1));
            Registration registration = discovery.discovery().register(instance, () -> LoadReport.idle(1));
            awaitTrue(() -> discovery.discovery().instances().stream().anyMatch(i -> i.id().equals(id)));
            return new FakePeer(id, server, registration);
        }

        @Override
        public void close() {
            registration.close();
            server.dispose();
        }
    }

    private static KvBlockFrame valid(KvFetchRequest request, long blockBytes) {
        byte[] payload = new byte[(int) blockBytes];
        random.nextBytes(payload);
        return new KvBlockFrame(request.hashes().getFirst(), 0, payload, WireFormat.crc32c(payload));
    }

    private static byte[] corrupted(KvFetchRequest request, long blockBytes) {
        byte[] bytes = WireFormat.encode(valid(request, blockBytes));
        bytes[bytes.length / 2] ^= 0x10; // inside the payload: the CRC32C no longer matches
        return bytes;
    }

    private static Payload frame(byte[] bytes) {
        return ByteBufPayload.create(Unpooled.wrappedBuffer(bytes));
    }

    private static ItSupport.Generated generate(Worker worker, int[] prompt) {
        return ItSupport.generate(worker.rsocketPort(),
                new GenerateRequest("kv-fetch-" + random.nextInt(), prompt, SamplingOptions.greedy(), OUTPUT, true, -1));
    }

    private static int[] greedy(int[] prompt) {
        try (Model model = Model.load(modelFile); Kernels kernels = Kernels.best()) {
            Transformer transformer = new Transformer(model.config(), model.weights(), kernels, 512);
            return new Generator(transformer, 64)
                    .generate(prompt, new Sampler(SamplingParams.greedy(), model.config().vocabSize()), OUTPUT,
                            t -> false, t -> { })
                    .tokens();
        }
    }

    private static int[] tokens(int n) {
        return random.ints(n, 3, 200).toArray();
    }
}

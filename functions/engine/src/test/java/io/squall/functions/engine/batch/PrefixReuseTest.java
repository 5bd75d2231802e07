package io.squall.functions.engine.batch;

import io.squall.functions.api.FinishReason;
import io.squall.functions.api.CacheSources;
import io.squall.functions.engine.model.Architecture;
import io.squall.functions.engine.model.Model;
import io.squall.functions.engine.model.RandomModel;
import io.squall.functions.engine.model.Transformer;
import io.squall.functions.engine.sampling.SampledToken;
import io.squall.functions.engine.sampling.SamplingParams;
import io.squall.kernels.GgmlType;
import io.squall.kernels.Kernels;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.WorkerId;
import io.squall.kvgrid.metrics.KvStats;
import com.hazelcast.core.HazelcastInstance;
import io.squall.kvgrid.grid.GridBlockStore;
import io.squall.kvgrid.grid.GridConfig;
import io.squall.kvgrid.grid.GridMembers;
import io.squall.kvgrid.offload.DiskBlockStore;
import io.squall.kvgrid.offload.HostBlockStore;
import io.squall.kvgrid.offload.OffloadConfig;
import io.squall.kvgrid.offload.OffloadPolicy;
import io.squall.kvgrid.pool.KvEventPublisher;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Multi-turn conversations whose every turn resends the whole history: prefix reuse must cut the
 * prompt tokens computed by the shared part and leave greedy outputs bit-identical, also when the
 * history was evicted from G1 and comes back from the lower tiers.
 */
class PrefixReuseTest {

    private static final int TURNS = 4;
    private static final int CONVERSATIONS = 3;
    private static final int REPLY = 8;

    @TempDir
    static Path dir;

    private static Model model;
    private static Kernels kernels;

    @BeforeAll
    static void load() {
        Path file = dir.resolve("model.gguf");
        RandomModel.write(new RandomModel.Spec(Architecture.LLAMA, new RandomModel.Shape(64, 2, 4, 2, 128, 1024),
                GgmlType.F32, null, 21), file);
        model = Model.load(file);
        kernels = Kernels.best();
    }

    @AfterAll
    static void close() {
        kernels.close();
        model.close();
    }

    /** What a run of all conversations produced. */
    private record Outcome(List<List<int[]>> replies, long promptTokens, long promptTokensComputed, long cachedTokens,
                           CacheSources sources) {
    }

    /** Counts onboarded blocks per source tier, and dropped offloads. */
    private static final class OnboardCounter implements KvStats {
        final ConcurrentHashMap<Tier, AtomicLong> onboarded = new ConcurrentHashMap<>();
        final AtomicLong dropped = new AtomicLong();

        @Override
        public void onboarded(Tier from, Tier to, int blocks) {
            onboarded.computeIfAbsent(from, t -> new AtomicLong()).addAndGet(blocks);
        }

        @Override
        public void offloadDropped(int blocks) {
            dropped.addAndGet(blocks);
        }

        long onboardedFrom(Tier tier) {
            AtomicLong count = onboarded.get(tier);
            return count == null ? 0 : count.get();
        }
    }

    private Outcome converse(long seed, boolean prefixCaching, int g1Blocks, OffloadConfig offload, KvStats stats)
            throws Exception {
        SplittableRandom random = new SplittableRandom(seed);
        int[] system = random.ints(40, 0, 256).toArray();
        List<int[]> histories = new ArrayList<>();
        List<List<int[]>> replies = new ArrayList<>();
        for (int c = 0; c < CONVERSATIONS; c++) {
            histories.add(system.clone());
            replies.add(new ArrayList<>());
        }
        long promptTokens = 0;
        long cachedTokens = 0;
        CacheSources sources = CacheSources.NONE;
        BatchConfig config = new BatchConfig(4, 64, true, 64, prefixCaching);
        KvEventPublisher events = new KvEventPublisher(new WorkerId(7), batch -> { });
        try (KvPool kv = KvPool.create(model.config().kvLayout(16), g1Blocks, offload, events, stats);
             BatchScheduler scheduler = new BatchScheduler(new Transformer(model.config(), model.weights(), kernels, 1024),
                     config, token -> false, kv)) {
            for (int turn = 0; turn < TURNS; turn++) {
                List<CompletableFuture<TokenSink.Usage>> done = new ArrayList<>();
                List<List<Integer>> outputs = new ArrayList<>();
                for (int c = 0; c < CONVERSATIONS; c++) {
                    int[] user = random.ints(12, 0, 256).toArray();
                    int[] prompt = concat(histories.get(c), user);
                    histories.set(c, prompt);
                    promptTokens += prompt.length;
                    List<Integer> output = new ArrayList<>();
                    outputs.add(output);
                    CompletableFuture<TokenSink.Usage> finished = new CompletableFuture<>();
                    done.add(finished);
                    Admission admission = scheduler.submit(new GenerationRequest("c" + c + "t" + turn, prompt,
                            SamplingParams.greedy(), REPLY, true, -1), new TokenSink() {
                        @Override
                        public void onToken(int token, SampledToken detail) {
                            output.add(token);
                        }

                        @Override
                        public void onFinish(FinishReason reason, Usage usage) {
                            finished.complete(usage);
                        }

                        @Override
                        public void onError(Throwable error) {
                            finished.completeExceptionally(error);
                        }
                    });
                    ((Admission.Queued) admission).generation().request(Long.MAX_VALUE);
                }
                for (int c = 0; c < CONVERSATIONS; c++) {
                    TokenSink.Usage usage = done.get(c).get(60, TimeUnit.SECONDS);
                    cachedTokens += usage.cachedTokens();
                    sources = sources.plus(usage.sources());
                    int[] reply = outputs.get(c).stream().mapToInt(Integer::intValue).toArray();
                    replies.get(c).add(reply);
                    histories.set(c, concat(histories.get(c), reply));
                }
            }
            return new Outcome(replies, promptTokens, scheduler.stats().promptTokensComputed(), cachedTokens, sources);
        }
    }

    private static int[] concat(int[] a, int[] b) {
        int[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static void assertSameReplies(Outcome actual, Outcome expected, long seed) {
        for (int c = 0; c < CONVERSATIONS; c++) {
            for (int t = 0; t < TURNS; t++) {
                assertThat(actual.replies().get(c).get(t)).as("conversation %d turn %d (seed %d)", c, t, seed)
                        .containsExactly(expected.replies().get(c).get(t));
            }
        }
    }

    @Test
    void reuseCutsComputedPromptTokensByTheSharedPartAndKeepsOutputsIdentical() throws Exception {
        long seed = System.nanoTime();
        Outcome off = converse(seed, false, 512, null, KvStats.NONE);
        Outcome on = converse(seed, true, 512, null, KvStats.NONE);
        assertSameReplies(on, off, seed);
        assertThat(off.promptTokensComputed()).isEqualTo(off.promptTokens());
        // Every turn after the first resends its history; the shared system prefix is reused across
        // conversations too. Only the tail past the last full block of the known prefix is recomputed.
        assertThat(on.cachedTokens()).isPositive();
        assertThat(on.promptTokensComputed()).isEqualTo(on.promptTokens() - on.cachedTokens());
        assertThat((double) on.promptTokensComputed() / on.promptTokens()).as("fraction computed").isLessThan(0.4);
    }

    @Test
    void historyEvictedFromG1IsOnboardedFromLowerTiersWithTheSameOutputs() throws Exception {
        long seed = System.nanoTime();
        Outcome reference = converse(seed, false, 512, null, KvStats.NONE);
        // G1 holds one conversation at a time at most, so histories are evicted between turns.
        int g1Blocks = 12;
        long blockBytes = model.config().kvLayout(16).blockBytes();
        OffloadConfig tiers = new OffloadConfig(List.of(
                new HostBlockStore(64 * blockBytes, blockBytes),
                new DiskBlockStore(dir.resolve("g3-" + seed), 1024 * blockBytes, blockBytes)),
                new OffloadPolicy(true, 0, false), 64, 256);
        OnboardCounter counter = new OnboardCounter();
        Outcome tiered = converse(seed, true, g1Blocks, tiers, counter);
        assertSameReplies(tiered, reference, seed);
        long onboarded = counter.onboarded.values().stream().mapToLong(AtomicLong::get).sum();
        assertThat(onboarded).as("blocks onboarded from G2/G3 (seed %d)", seed).isPositive();
        assertThat(tiered.promptTokensComputed()).isLessThan(reference.promptTokensComputed());
    }

    @Test
    void greedyOutputsWithOffloadOnEqualThoseWithItOff() throws Exception {
        long seed = System.nanoTime();
        int g1Blocks = 12; // histories are evicted between turns
        Outcome off = converse(seed, true, g1Blocks, null, KvStats.NONE);
        long blockBytes = model.config().kvLayout(16).blockBytes();
        // G2 only: histories stream back from host memory a layer at a time while the new turn is computed.
        OnboardCounter streamed = new OnboardCounter();
        Outcome host = converse(seed, true, g1Blocks, new OffloadConfig(List.of(new HostBlockStore(64 * blockBytes,
                blockBytes)), OffloadPolicy.standard(), 4, 256), streamed);
        // G3 only: histories are read back from disk and verified before the new turn runs.
        OnboardCounter read = new OnboardCounter();
        Outcome disk = converse(seed, true, g1Blocks, new OffloadConfig(List.of(new DiskBlockStore(
                dir.resolve("g3-equal-" + seed), 1024 * blockBytes, blockBytes)), new OffloadPolicy(false, 0, false), 4, 256), read);

        // G2 far too small: what it evicts spills into G3, and returning histories come back from both.
        OnboardCounter spilled = new OnboardCounter();
        Outcome overflow = converse(seed, true, g1Blocks, new OffloadConfig(List.of(new HostBlockStore(4 * blockBytes,
                blockBytes), new DiskBlockStore(dir.resolve("g3-spill-" + seed), 1024 * blockBytes, blockBytes)),
                OffloadPolicy.standard(), 4, 256), spilled);

        assertSameReplies(host, off, seed);
        assertSameReplies(disk, off, seed);
        assertSameReplies(overflow, off, seed);
        assertThat(spilled.onboardedFrom(Tier.G3)).as("blocks read from G3 after G2 spilled them (seed %d)", seed)
                .isPositive();
        assertThat(spilled.dropped.get()).as("dropped offloads with G2 full and G3 behind it").isZero();
        assertThat(overflow.sources().g3()).isPositive();
        assertThat(streamed.onboardedFrom(Tier.G2)).as("blocks streamed from G2 (seed %d)", seed).isPositive();
        assertThat(read.onboardedFrom(Tier.G3)).as("blocks read from G3 (seed %d)", seed).isPositive();
        assertThat(streamed.dropped.get() + read.dropped.get()).as("dropped offloads").isZero();
        assertThat(host.promptTokensComputed()).isLessThan(off.promptTokensComputed());
        assertThat(disk.promptTokensComputed()).isLessThan(off.promptTokensComputed());
        // Each request's usage says where its cached tokens came from.
        for (Outcome outcome : List.of(off, host, disk)) {
            assertThat((long) outcome.sources().total()).isEqualTo(outcome.cachedTokens());
        }
        assertThat(off.sources().g2() + off.sources().g3()).isZero();
        assertThat(host.sources().g2()).isPositive();
        assertThat(host.sources().g3()).isZero();
        assertThat(disk.sources().g3()).isPositive();
        assertThat(disk.sources().g2()).isZero();
    }

    @Test
    void historyEvictedFromG1IsOnboardedFromTheHazelcastGrid() throws Exception {
        long seed = System.nanoTime();
        Outcome reference = converse(seed, false, 512, null, KvStats.NONE);
        long blockBytes = model.config().kvLayout(16).blockBytes();
        int port;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        HazelcastInstance member = GridMembers.start(new GridConfig("squall-prefix-" + seed, "127.0.0.1", port,
                List.of("127.0.0.1:" + port), 1, 10_000));
        try {
            OffloadConfig grid = new OffloadConfig(List.of(new GridBlockStore(member, blockBytes)),
                    new OffloadPolicy(false, Integer.MAX_VALUE, true), 64, 256);
            OnboardCounter counter = new OnboardCounter();
            Outcome tiered = converse(seed, true, 12, grid, counter);
            assertSameReplies(tiered, reference, seed);
            assertThat(counter.onboarded.get(Tier.G4)).as("blocks onboarded from G4 (seed %d)", seed).isNotNull();
            assertThat(counter.onboarded.get(Tier.G4).get()).isPositive();
        } finally {
            member.getLifecycleService().terminate();
        }
    }
}

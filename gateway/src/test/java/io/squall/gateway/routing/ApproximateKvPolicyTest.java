package io.squall.gateway.routing;

import io.squall.functions.api.GenerateRequest;
import io.squall.functions.api.SamplingOptions;
import io.squall.functions.discovery.InstanceId;
import io.squall.functions.discovery.LoadReport;
import io.squall.functions.discovery.ServedModel;
import io.squall.functions.discovery.WorkerInstance;
import io.squall.functions.discovery.WorkerRole;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** Approximate KV routing: overlaps learned from the router's own decisions, forgotten after their TTL. */
class ApproximateKvPolicyTest {

    private static final ServedModel MODEL = ServedModel.of("m", 4096, 16);
    private static final Duration TTL = Duration.ofSeconds(120);
    private static final Duration STEP = Duration.ofSeconds(10);

    private final AtomicLong nowMillis = new AtomicLong(1_000_000);
    private final InstantSource clock = () -> Instant.ofEpochMilli(nowMillis.get());
    private final ApproximateKvPolicy policy = new ApproximateKvPolicy(KvRoutingPolicy.Config.defaults(), TTL, clock);
    private final List<WorkerInstance> workers = List.of(worker(1), worker(2), worker(3));
    private final InFlight idle = new InFlight();

    @AfterEach
    void close() {
        policy.close();
    }

    @Test
    void aPromptSharingARoutedPrefixGoesWhereThePrefixWentUntilItsTtlLapses() {
        int[] prefix = new SplittableRandom(7).ints(8 * 16, 3, 500).toArray();
        WorkerInstance first = choose(prefix);

        nowMillis.addAndGet(STEP.toMillis());
        assertThat(choose(extended(prefix, 5))).as("credited with the prefix it was sent").isEqualTo(first);

        nowMillis.addAndGet(TTL.plus(STEP).toMillis());
        int[] unrelated = new SplittableRandom(8).ints(8 * 16, 3, 500).toArray();
        List<WorkerInstance> picks = List.of(choose(extended(prefix, 9)), choose(unrelated), choose(extended(unrelated, 3)));
        assertThat(picks.getFirst()).as("after the TTL nobody is credited: ties rotate away from it").isNotEqualTo(first);
        assertThat(picks.get(2)).as("the fresh routing is learned again").isEqualTo(picks.get(1));
    }

    @Test
    void aWorkerThatLeftIsForgotten() {
        int[] prefix = new SplittableRandom(9).ints(4 * 16, 3, 500).toArray();
        WorkerInstance first = choose(prefix);
        policy.removed(first.id());

        assertThat(choose(extended(prefix, 2))).as("no longer credited with the prefix: the tie rotates on")
                .isNotEqualTo(first);
    }

    @Test
    void aPromptMovedToAWorkerThatJoinedIsCreditedThere() {
        int[] prefix = new SplittableRandom(11).ints(6 * 16, 3, 500).toArray();
        WorkerInstance first = choose(prefix);
        WorkerInstance joined = workers.stream().filter(w -> !w.equals(first)).findFirst().orElseThrow();
        policy.moved(request(prefix), joined);

        // the joined worker also decodes one more block than the other candidate: only the credit can win it the prompt
        InFlight load = new InFlight();
        load.started(joined.id(), 1);
        List<WorkerInstance> others = workers.stream().filter(w -> !w.equals(first)).toList();
        assertThat(policy.choose(request(extended(prefix, 4)), others, load).block(Duration.ofSeconds(10)).worker())
                .as("the worker computing the moved prompt holds its prefix").isEqualTo(joined);
    }

    private WorkerInstance choose(int[] prompt) {
        return policy.choose(request(prompt), workers, idle).block(Duration.ofSeconds(10)).worker();
    }

    private static GenerateRequest request(int[] prompt) {
        return new GenerateRequest("r", prompt, SamplingOptions.greedy(), 4, true, -1);
    }

    private static int[] extended(int[] prompt, int extra) {
        int[] longer = Arrays.copyOf(prompt, prompt.length + extra);
        Arrays.fill(longer, prompt.length, longer.length, 42);
        return longer;
    }

    private static WorkerInstance worker(long n) {
        return new WorkerInstance(new InstanceId("squall", "worker", "generate", n), WorkerRole.AGGREGATED, MODEL,
                "127.0.0.1", 7000 + (int) n, 8000 + (int) n, 8, LoadReport.idle(1024));
    }
}

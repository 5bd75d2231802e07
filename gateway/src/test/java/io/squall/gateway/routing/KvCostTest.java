package io.squall.gateway.routing;

import io.squall.functions.discovery.InstanceId;
import io.squall.functions.discovery.LoadReport;
import io.squall.functions.discovery.ServedModel;
import io.squall.functions.discovery.WorkerInstance;
import io.squall.functions.discovery.WorkerRole;
import io.squall.kvgrid.index.OverlapScores;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

/**
 * The router's cost in blocks against its cost in predicted time, on a returning turn of a long conversation (the
 * worker that holds the history also decodes more, in G1 or in host memory) and on a prompt that shares only a small
 * prefix with a busy worker.
 */
class KvCostTest {

    /** About an 8B model on one datacenter GPU: 12k prompt tokens a second; decode bound by reading weights and KV. */
    private static final WorkerLatency GPU = new WorkerLatency() {
        @Override
        public double prefillMs(double tokens) {
            return tokens / 12.0;
        }

        @Override
        public double itlMs(double sequences, double contextTokens) {
            return 6 + 0.00004 * sequences * contextTokens;
        }

        /** 128 KiB of KV a token over a 50 GB/s host link. */
        @Override
        public double onboardMs(double tokens) {
            return tokens * 0.0026;
        }
    };
    private static final int PROMPT_BLOCKS = 770; // a 12,320-token history and its new turn, 16-token blocks
    private static final int OUTPUT = 343;

    private final WorkerInstance holder = worker(1, 2, 1500); // holds the history, decodes two conversations
    private final WorkerInstance other = worker(2, 1, 750);   // holds the shared system prompt, decodes one
    private final OverlapScores scores = OverlapScores.builder(PROMPT_BLOCKS)
            .depths(holder.id().workerId(), new int[] {750, 750, 750, 750}, 0)
            .depths(other.id().workerId(), new int[] {32, 32, 32, 32}, 0)
            .build();

    @Test
    void countedInBlocksTheReturningTurnLeavesTheWorkerThatHoldsItsHistory() {
        KvCost blocks = new KvCost(KvRoutingPolicy.Config.defaults());
        RouteDecision decision = blocks.pick(List.of(holder, other), new InFlight(), scores, OUTPUT);
        assertThat(decision.worker()).isEqualTo(other);
    }

    @Test
    void inPredictedTimeItStaysWithItsHistoryUnlessPromptsQueueThere() {
        KvCost time = new KvCost(KvRoutingPolicy.Config.defaults().withLatency(GPU));
        InFlight load = new InFlight();
        RouteDecision decision = time.pick(List.of(holder, other), load, scores, OUTPUT);
        assertThat(decision.worker()).isEqualTo(holder);
        assertThat(decision.overlapBlocks()).isEqualTo(750);
        // three 12k-token prompts sent to the holder and still prefilling: three seconds ahead of this one
        List<InFlight.Waiting> queued = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            queued.add(load.prefillStarted(holder.id(), 12_000));
        }
        assertThat(time.pick(List.of(holder, other), load, scores, OUTPUT).worker()).isEqualTo(other);
        // their first tokens came back: the queue is gone
        queued.forEach(request -> load.prefillEnded(holder.id(), request));
        assertThat(load.prefilling(holder)).isEqualTo(InFlight.Prefilling.NONE);
        assertThat(time.pick(List.of(holder, other), load, scores, OUTPUT).worker()).isEqualTo(holder);
    }

    @Test
    void aPromptThatMostlyMissesGoesToTheIdleWorkerRatherThanStallTheSequencesBesideASmallPrefix() {
        // 250 of the prompt's 770 blocks cached on a worker decoding four sequences, nothing on an idle one
        WorkerInstance busy = worker(3, 4, 1200);
        WorkerInstance idle = worker(4, 0, 0);
        OverlapScores partial = OverlapScores.builder(PROMPT_BLOCKS)
                .depths(busy.id().workerId(), new int[] {250, 250, 250, 250}, 0)
                .build();
        InFlight load = new InFlight();
        double ownOnBusy = 520 * 16 / 12.0 + OUTPUT * GPU.itlMs(5, (1200 + PROMPT_BLOCKS) * 16 / 5.0);
        double ownOnIdle = PROMPT_BLOCKS * 16 / 12.0 + OUTPUT * GPU.itlMs(1, PROMPT_BLOCKS * 16);
        assertThat(ownOnBusy).isLessThan(ownOnIdle); // by its own latency alone it would join the busy worker
        KvCost time = new KvCost(KvRoutingPolicy.Config.defaults().withLatency(GPU));
        assertThat(time.pick(List.of(busy, idle), load, partial, OUTPUT).worker()).isEqualTo(idle);
        // the four sequences each wait through its 693 ms of prefill, then decode slower beside half its output
        double slower = GPU.itlMs(5, (1200 + PROMPT_BLOCKS) * 16 / 5.0) - GPU.itlMs(4, 1200 * 16 / 4.0);
        assertThat(time.cost(busy, load, partial, OUTPUT, 0.5))
                .isCloseTo(ownOnBusy + 0.5 * 520 * 16 / 12.0 + 4 * (520 * 16 / 12.0 + OUTPUT / 2.0 * slower), offset(1e-6));
    }

    @Test
    void inPredictedTimeAHistoryInHostMemoryCostsItsCopyNotAShareOfItsRecompute() {
        // the holder evicted the history from G1 to G2 and decodes two conversations; the other worker is idle
        WorkerInstance idle = worker(5, 0, 0);
        OverlapScores evicted = OverlapScores.builder(PROMPT_BLOCKS)
                .depths(holder.id().workerId(), new int[] {32, 750, 750, 750}, 0)
                .depths(idle.id().workerId(), new int[] {32, 32, 32, 32}, 0)
                .build();
        InFlight load = new InFlight();
        KvCost time = new KvCost(KvRoutingPolicy.Config.defaults().withLatency(GPU));
        assertThat(time.cost(holder, load, evicted, OUTPUT, 0.5))
                .isCloseTo(KvCost.predictedMs(GPU, holder, load, 20, 718, PROMPT_BLOCKS, OUTPUT, 0.5), offset(1e-9));
        assertThat(time.pick(List.of(holder, idle), load, evicted, OUTPUT).worker()).isEqualTo(holder);
        // at the blocks cost's weight the 718 blocks would count as 359 to recompute, stalling the two beside it
        double halfRecomputed = KvCost.predictedMs(GPU, holder, load, 20 + 359, 0, PROMPT_BLOCKS, OUTPUT, 0.5);
        assertThat(halfRecomputed).isGreaterThan(time.cost(idle, load, evicted, OUTPUT, 0.5));
    }

    @Test
    void theWorkerTimeARecomputeTakesCountsAsMuchAsTheClusterIsBusy() {
        // 448 of a 489-block prompt cached on a worker decoding one other sequence; an idle worker holds 32
        WorkerInstance beside = worker(6, 1, 800);
        WorkerInstance idle = worker(7, 0, 0);
        OverlapScores turn = OverlapScores.builder(489)
                .depths(beside.id().workerId(), new int[] {448, 448, 448, 448}, 0)
                .depths(idle.id().workerId(), new int[] {32, 32, 32, 32}, 0)
                .build();
        InFlight load = new InFlight();
        KvCost time = new KvCost(KvRoutingPolicy.Config.defaults().withLatency(GPU));
        int output = 1000;
        // counted as free, the idle worker's recompute (457 blocks) beats decoding beside one sequence
        assertThat(time.cost(idle, load, turn, output, 0)).isLessThan(time.cost(beside, load, turn, output, 0));
        // one of the two workers is at work: the recompute's worker time is wanted half the time
        assertThat(KvCost.busyShare(List.of(beside, idle), load)).isEqualTo(0.5);
        assertThat(time.cost(idle, load, turn, output, 0.5) - time.cost(idle, load, turn, output, 0))
                .isCloseTo(0.5 * 457 * 16 / 12.0, offset(1e-9));
        assertThat(time.pick(List.of(beside, idle), load, turn, output).worker()).isEqualTo(beside);
    }

    @Test
    void aLongMaxTokensIsCostedAsABoundNotAForecast() {
        InFlight load = new InFlight();
        double capped = KvCost.predictedMs(GPU, other, load, 0, 0, PROMPT_BLOCKS, 1_000_000, 0);
        double atCap = KvCost.predictedMs(GPU, other, load, 0, 0, PROMPT_BLOCKS, KvCost.MAX_COSTED_OUTPUT, 0);
        assertThat(capped).isEqualTo(atCap);
    }

    private static WorkerInstance worker(long instance, int sequences, int activeBlocks) {
        return new WorkerInstance(new InstanceId("ns", "worker", "generate", instance), WorkerRole.AGGREGATED,
                ServedModel.of("m", 131_072, 16), "127.0.0.1", 1, 2, 64,
                new LoadReport(sequences, 0, 8192 - activeBlocks, 8192, 0));
    }
}

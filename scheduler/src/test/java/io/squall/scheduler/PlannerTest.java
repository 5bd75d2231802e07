package io.squall.scheduler;

import io.squall.scheduler.observe.Observation;
import io.squall.scheduler.observe.PoolLoad;
import io.squall.scheduler.observe.Traffic;
import io.squall.scheduler.profile.Profile;
import io.squall.scheduler.sizing.PerformanceModel;
import io.squall.scheduler.sizing.SlaSizer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.IntToDoubleFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The planner on recorded metric series: each interval's traffic is what the series says, and the pools have what
 * the planner set the interval before (replicas appear at once), with latencies as the profile predicts for that
 * load, so the planner's corrections stay near 1 unless a test says otherwise.
 */
public class PlannerTest {

    /** A worker that prefills 512 tokens in 60 ms and decodes 32 sequences at 512 tokens every 20 ms. */
    static final Profile PROFILE = new Profile(Profile.FORMAT, "test-model", "test-hw", "made up for tests",
            new Profile.WorkerShape(16, 64, 512, 200_000, 8192),
            new Profile.Timing(List.of(new Profile.Knot(1, 10)), 0, 0),
            List.of(new Profile.PrefillPoint(128, 20), new Profile.PrefillPoint(512, 60),
                    new Profile.PrefillPoint(2048, 300)),
            List.of(new Profile.DecodePoint(1, 512, 10), new Profile.DecodePoint(1, 2048, 13),
                    new Profile.DecodePoint(8, 512, 12), new Profile.DecodePoint(8, 2048, 16),
                    new Profile.DecodePoint(32, 512, 20), new Profile.DecodePoint(32, 2048, 26),
                    new Profile.DecodePoint(64, 512, 35), new Profile.DecodePoint(64, 2048, 46)));
    /** The profile, for the other tests of the planner's parts. */
    public static Profile profile() {
        return PROFILE;
    }

    static final PlannerConfig.Slo SLO = new PlannerConfig.Slo(400, 25);
    static final PerformanceModel MODEL = new PerformanceModel(PROFILE);

    static PlannerConfig disaggregated(int max, int budget) {
        return new PlannerConfig(Map.of(Pool.PREFILL, new PlannerConfig.Bounds(1, max),
                Pool.DECODE, new PlannerConfig.Bounds(1, max)), budget, Duration.ofSeconds(10), SLO,
                PlannerConfig.Mode.SLA, "kalman", 3);
    }

    /** Runs {@code intervals} of traffic at {@code rate(i)} requests/s of 512 in, 128 out; returns the decisions. */
    static List<Decision> run(Planner planner, int intervals, IntToDoubleFunction rate, boolean disaggregated) {
        List<Decision> decisions = new ArrayList<>();
        Map<Pool, Integer> replicas = new EnumMap<>(Pool.class);
        if (disaggregated) {
            replicas.put(Pool.PREFILL, 1);
            replicas.put(Pool.DECODE, 1);
        } else {
            replicas.put(Pool.AGGREGATED, 1);
        }
        for (int i = 0; i < intervals; i++) {
            double lambda = rate.applyAsDouble(i);
            Map<Pool, PoolLoad> pools = new EnumMap<>(Pool.class);
            Map<Pool, Replicas> current = new EnumMap<>(Pool.class);
            replicas.forEach((pool, n) -> {
                double sequences = lambda * 128 * 0.020; // Little: arrivals × tokens × ITL
                pools.put(pool, new PoolLoad(n, Math.round(sequences), 0, 0.2));
                current.put(pool, new Replicas(n, n, n));
            });
            int decoders = replicas.getOrDefault(Pool.DECODE, replicas.getOrDefault(Pool.AGGREGATED, 1));
            double itl = MODEL.itlMs(Math.max(1, lambda * 128 * 0.020 / decoders), 512 + 64);
            Traffic traffic = new Traffic(lambda, 512, 128, 0, 0, 150, 200, itl, itl * 1.2, Math.round(lambda * 10), 0);
            Decision decision = planner.plan(new Observation(i * 10.0, traffic, pools), current);
            decisions.add(decision);
            decision.pools().forEach((pool, plan) -> replicas.put(pool, plan.target()));
        }
        return decisions;
    }

    static int target(Decision decision, Pool pool) {
        return decision.pools().get(pool).target();
    }

    @Test
    void aStepInLoadIsMetWithinTwoIntervalsWithWhatTheProfileSays() {
        List<Decision> decisions = run(new Planner(disaggregated(32, 64), MODEL), 20, i -> i < 10 ? 5 : 20, true);
        Decision settled = decisions.get(11); // the second interval after the step
        // decode: 20 req/s × 128 tokens at 576 tokens of context within 25 ms per token
        double perWorker = MODEL.decodeTokensPerSecond(25, 576);
        assertThat(target(settled, Pool.DECODE)).isGreaterThanOrEqualTo((int) Math.ceil(20 * 128 / perWorker));
        // prefill: 20 × 512 tokens/s of 60 ms prompts, all alike, on enough workers to keep p90 TTFT within 400 ms
        double busy = 20 * 512 / MODEL.prefillTokensPerSecond(512);
        double prefill = new SlaSizer(MODEL, SLO).prefill(new Decision.Prediction(20, 512, 128, 0, 0, 1, 1));
        assertThat(prefill).isBetween(busy / 0.95, busy / 0.5);
        assertThat(target(settled, Pool.PREFILL)).isGreaterThanOrEqualTo((int) Math.ceil(prefill));
        // and the capacity chosen is not wasteful: within one worker of the demand
        assertThat(target(settled, Pool.DECODE)).isLessThanOrEqualTo((int) Math.ceil(20 * 128 / perWorker) + 1);
    }

    @Test
    void aSteadyNoisyLoadDoesNotOscillate() {
        long seed = System.nanoTime();
        SplittableRandom random = new SplittableRandom(seed);
        List<Decision> decisions = run(new Planner(disaggregated(32, 64), MODEL), 60,
                i -> 15 * (1 + 0.1 * (2 * random.nextDouble() - 1)), true);
        int changes = 0;
        for (int i = 11; i < decisions.size(); i++) {
            for (Pool pool : List.of(Pool.PREFILL, Pool.DECODE)) {
                if (target(decisions.get(i), pool) != target(decisions.get(i - 1), pool)) {
                    changes++;
                }
            }
        }
        assertThat(changes).as("target changes after settling, seed %d", seed).isLessThanOrEqualTo(2);
    }

    @Test
    void aOneIntervalSpikeScalesUpAtOnceButDownOnlyAfterTheHysteresis() {
        List<Decision> decisions = run(new Planner(disaggregated(32, 64), MODEL), 20, i -> i == 8 ? 40 : 4, true);
        int before = target(decisions.get(7), Pool.DECODE);
        assertThat(target(decisions.get(8), Pool.DECODE)).isGreaterThan(before);
        // the spike's capacity stays for the three intervals after it, then goes
        assertThat(target(decisions.get(10), Pool.DECODE)).isEqualTo(target(decisions.get(8), Pool.DECODE));
        assertThat(target(decisions.get(19), Pool.DECODE)).isLessThan(target(decisions.get(8), Pool.DECODE));
    }

    @Test
    void aRampIsFollowedAndADiurnalCycleTrackedWithinBoundsAndBudget() {
        List<Decision> ramp = run(new Planner(disaggregated(32, 64), MODEL), 30, i -> 1 + i, true);
        for (int i = 5; i < 30; i++) {
            double lambda = 1 + i;
            int needed = (int) Math.ceil(lambda * 128 / MODEL.decodeTokensPerSecond(25, 576));
            assertThat(target(ramp.get(i), Pool.DECODE)).as("interval %d of the ramp", i)
                    .isGreaterThanOrEqualTo(needed);
        }
        List<Decision> day = run(new Planner(disaggregated(8, 12), MODEL), 96,
                i -> 12 + 10 * Math.sin(2 * Math.PI * i / 48), true);
        for (Decision d : day) {
            int prefill = target(d, Pool.PREFILL);
            int decode = target(d, Pool.DECODE);
            assertThat(prefill).isBetween(1, 8);
            assertThat(decode).isBetween(1, 8);
            assertThat(prefill + decode).isLessThanOrEqualTo(12);
        }
        long decodeChanges = java.util.stream.IntStream.range(1, day.size())
                .filter(i -> target(day.get(i), Pool.DECODE) != target(day.get(i - 1), Pool.DECODE)).count();
        assertThat(decodeChanges).as("a smooth cycle moves capacity in few steps").isLessThan(30);
    }

    @Test
    void aLoadThatTurnsUpAfterFallingIsNotPlannedBelowWhatTheLastIntervalCarried() {
        // a V: the Kalman filter's falling trend would carry on past the turn
        List<Decision> decisions = run(new Planner(disaggregated(32, 64), MODEL), 24,
                i -> i < 12 ? 24 - 2 * i : 2 + 3 * (i - 12), true);
        for (Decision d : decisions) {
            assertThat(d.predicted().requestsPerSecond()).as("at %.0f s", d.observed().atSeconds())
                    .isGreaterThanOrEqualTo(d.observed().traffic().requestsPerSecond());
        }
        Decision afterTurn = decisions.get(14); // 8 requests/s and rising
        assertThat(target(afterTurn, Pool.DECODE))
                .isGreaterThanOrEqualTo((int) Math.ceil(8 * 128 / MODEL.decodeTokensPerSecond(25, 576)));
    }

    @Test
    void overTheBudgetPoolsAreCutInProportionToWhatTheyAsked() {
        List<Decision> decisions = run(new Planner(disaggregated(32, 6), MODEL), 6, i -> 60, true);
        Decision last = decisions.getLast();
        assertThat(target(last, Pool.PREFILL) + target(last, Pool.DECODE)).isEqualTo(6);
        for (Pool pool : List.of(Pool.PREFILL, Pool.DECODE)) {
            Decision.PoolPlan plan = last.pools().get(pool);
            // 60 req/s asks for 4 prefill and 5 decode workers; 6 are split about 6/9 of each
            assertThat(plan.target()).isBetween(2, 4).isLessThanOrEqualTo(plan.desired());
        }
        assertThat(last.pools().values()).anyMatch(plan -> plan.reason().contains("budget"));
    }

    @Test
    void slowerThanProfiledWorkersRaiseTheCorrectionAndTheReplicas() {
        Planner planner = new Planner(disaggregated(32, 64), MODEL);
        Planner slow = new Planner(disaggregated(32, 64), MODEL);
        Map<Pool, PoolLoad> pools = Map.of(Pool.PREFILL, new PoolLoad(2, 4, 0, 0.3), Pool.DECODE, new PoolLoad(2, 40, 0, 0.3));
        Map<Pool, Replicas> current = Map.of(Pool.PREFILL, new Replicas(2, 2, 2), Pool.DECODE, new Replicas(2, 2, 2));
        Decision fine = null;
        Decision lagging = null;
        for (int i = 0; i < 8; i++) {
            double expectedItl = MODEL.itlMs(20, 576);
            fine = planner.plan(new Observation(i, new Traffic(10, 512, 128, 0, 0, 100, 120, expectedItl, expectedItl,
                    100, 0), pools), current);
            lagging = slow.plan(new Observation(i, new Traffic(10, 512, 128, 0, 0, 100, 120, 2 * expectedItl,
                    2 * expectedItl, 100, 0), pools), current);
        }
        assertThat(lagging.predicted().decodeCorrection()).isGreaterThan(1.5);
        assertThat(fine.predicted().decodeCorrection()).isBetween(0.9, 1.1);
        assertThat(lagging.pools().get(Pool.DECODE).demand()).isGreaterThan(fine.pools().get(Pool.DECODE).demand());
    }

    @Test
    void loadModeGrowsAHotPoolAndShrinksAnIdleOneWithoutAProfile() {
        PlannerConfig config = new PlannerConfig(Map.of(Pool.AGGREGATED, new PlannerConfig.Bounds(1, 10)), 10,
                Duration.ofSeconds(10), SLO, PlannerConfig.Mode.LOAD, "constant", 2);
        Planner planner = new Planner(config, null);
        Map<Pool, Replicas> four = Map.of(Pool.AGGREGATED, new Replicas(4, 4, 4));
        Decision hot = planner.plan(new Observation(0, Traffic.none(),
                Map.of(Pool.AGGREGATED, new PoolLoad(4, 60, 12, 0.9))), four);
        assertThat(target(hot, Pool.AGGREGATED)).isEqualTo(5);
        Map<Pool, Replicas> five = Map.of(Pool.AGGREGATED, new Replicas(5, 5, 5));
        Observation idle = new Observation(1, Traffic.none(), Map.of(Pool.AGGREGATED, new PoolLoad(5, 1, 0, 0.05)));
        assertThat(target(planner.plan(idle, five), Pool.AGGREGATED)).isEqualTo(5); // hysteresis: one interval below
        assertThat(target(planner.plan(idle, five), Pool.AGGREGATED)).isEqualTo(4);
    }

    @Test
    void aBurstWithinAnIntervalGrowsThePoolAtOnceAndOnlyTheIntervalsShrinkIt() {
        Planner planner = aggregatedPlanner();
        Decision quiet = planner.plan(new Observation(10, traffic(2), CALM), TWO);
        int before = target(quiet, Pool.AGGREGATED);
        assertThat(planner.urgent(new Observation(14, traffic(2), CALM), TWO)).as("the same load").isNull();

        assertThat(planner.urgent(new Observation(15, traffic(40), CALM), TWO))
                .as("more traffic while the targets are still met").isNull();
        Decision burst = planner.urgent(new Observation(15, missingTargets(traffic(40)), CALM), TWO);
        assertThat(burst).isNotNull();
        assertThat(target(burst, Pool.AGGREGATED)).isGreaterThan(before);
        assertThat(burst.pools().get(Pool.AGGREGATED).reason()).isEqualTo("urgent scale up");
        assertThat(planner.urgent(new Observation(16, missingTargets(traffic(0.1)), CALM), TWO)).as("never shrinks")
                .isNull();

        // the interval ends within its targets on a quieter load: its decision sizes the pool from it at once
        Map<Pool, Replicas> grown = Map.of(Pool.AGGREGATED, new Replicas(target(burst, Pool.AGGREGATED),
                target(burst, Pool.AGGREGATED), target(burst, Pool.AGGREGATED)));
        Decision revised = planner.plan(new Observation(20, traffic(2), CALM), grown);
        assertThat(target(revised, Pool.AGGREGATED)).isLessThan(target(burst, Pool.AGGREGATED))
                .isGreaterThanOrEqualTo(before);
        assertThat(revised.pools().get(Pool.AGGREGATED).reason()).isEqualTo("urgent scale up revised");
    }

    @Test
    void anIntervalThatMissedItsTargetsKeepsTheUrgentGrowthUnderTheHysteresis() {
        Planner planner = aggregatedPlanner();
        planner.plan(new Observation(10, traffic(2), CALM), TWO);
        Decision burst = planner.urgent(new Observation(15, missingTargets(traffic(400)), CALM), TWO);
        assertThat(target(burst, Pool.AGGREGATED)).as("a check at most doubles the pool").isEqualTo(4);
        Map<Pool, Replicas> grown = Map.of(Pool.AGGREGATED, new Replicas(4, 4, 4));
        assertThat(target(planner.plan(new Observation(20, missingTargets(traffic(2)), CALM), grown),
                Pool.AGGREGATED)).isEqualTo(4);
    }

    @Test
    void withNoFinishedRequestYetAFullPoolGrowsWithinTheInterval() {
        Planner planner = aggregatedPlanner();
        Map<Pool, Replicas> one = Map.of(Pool.AGGREGATED, new Replicas(1, 1, 1));
        Decision full = planner.urgent(new Observation(4, Traffic.none(),
                Map.of(Pool.AGGREGATED, new PoolLoad(1, 30, 6, 0.97))), one);
        assertThat(full).isNotNull();
        assertThat(target(full, Pool.AGGREGATED)).isEqualTo(2);
    }

    /** Two aggregated workers, lightly loaded. */
    private static final Map<Pool, Replicas> TWO = Map.of(Pool.AGGREGATED, new Replicas(2, 2, 2));
    private static final Map<Pool, PoolLoad> CALM = Map.of(Pool.AGGREGATED, new PoolLoad(2, 4, 0, 0.1));

    /** One aggregated pool of 1 to 40 workers, 10 s intervals, two of hysteresis. */
    private static Planner aggregatedPlanner() {
        return new Planner(new PlannerConfig(Map.of(Pool.AGGREGATED, new PlannerConfig.Bounds(1, 40)), 40,
                Duration.ofSeconds(10), SLO, PlannerConfig.Mode.SLA, "kalman", 2), MODEL);
    }

    /** {@code t} with its p90 TTFT twice the target. */
    private static Traffic missingTargets(Traffic t) {
        return new Traffic(t.requestsPerSecond(), t.inputTokens(), t.outputTokens(), t.cacheHitRatio(), t.prefillCv2(),
                t.ttftMs(), 2 * SLO.ttftMs(), t.itlMs(), t.itlP90Ms(), t.finished(), t.failed());
    }

    /** An interval of {@code lambda} requests/s of 512 in, 128 out, at the latencies the profile expects. */
    private static Traffic traffic(double lambda) {
        return new Traffic(lambda, 512, 128, 0, 0, 150, 200, 15, 18, Math.round(lambda * 10), 0);
    }
}

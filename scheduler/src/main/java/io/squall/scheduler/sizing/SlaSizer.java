package io.squall.scheduler.sizing;

import io.squall.scheduler.Decision.Prediction;
import io.squall.scheduler.PlannerConfig.Slo;

/**
 * Replicas from a profile and latency targets, per pool, for a predicted load:
 * <ul>
 *   <li><b>prefill</b>: the pool as one M/G/c queue. Prompts arrive at random at rate {@code λ}; each holds a worker
 *       for {@code b = isl / throughput(isl)} (the uncached prompt tokens over one worker's prefill throughput at
 *       that length), so the pool carries {@code a = λ · b} workers' worth of prompts. With {@code c} workers a
 *       prompt waits with Erlang C's probability {@code C(c, a)}, and then about exponentially with mean
 *       {@code b (1 + c²) / 2(c − a)} (M/M/c's, scaled by Allen–Cunneen's factor for prompt times of squared
 *       coefficient of variation {@code c²}); its TTFT is that wait plus its own time, log-normal around the
 *       profile's TTFT alone ({@link PromptTimes}). The pool needs the fewest workers whose TTFT percentile (the
 *       target's quantile) stays within the target, each at most {@value #MAX_BUSY_PER_WORKER} busy; between
 *       {@code c − 1} and {@code c} the need is interpolated on what each carries, so the aggregated sum below is
 *       not rounded twice. One queue for the pool, not one per worker: the router sends a prompt to whichever
 *       worker is free first, which is what several servers on one queue model;</li>
 *   <li><b>decode</b>: the output tokens per second, {@code λ · osl}, over the most one worker decodes while keeping
 *       ITL within the target (divided by the decode correction) at the mean context {@code isl + osl/2};</li>
 *   <li><b>aggregated</b>: both shares of a worker's time added up.</li>
 * </ul>
 * The prefill correction (observed over modelled TTFT percentile) divides the target rather than scaling the
 * prompts, so what the model gets wrong about the wait is not multiplied into the prompts' own time. Immutable.
 */
public final class SlaSizer {

    /** Busy share per worker when a lone prompt already misses the TTFT target (no number of workers meets it). */
    static final double UNREACHABLE_TTFT_UTILISATION = 0.5;
    static final double MAX_BUSY_PER_WORKER = 0.95;
    /** The quantile the planner's corrections compare: gateways report the 90th percentile. */
    private static final double OBSERVED_QUANTILE = 0.9;

    private final PerformanceModel model;
    private final Slo slo;

    public SlaSizer(PerformanceModel model, Slo slo) {
        this.model = model;
        this.slo = slo;
    }

    /** Prefill workers needed (fractional); 0 without traffic. */
    public double prefill(Prediction load) {
        double isl = uncachedInput(load.inputTokens(), load.cacheHitRatio());
        if (!(load.requestsPerSecond() > 0) || !(isl > 0)) {
            return 0;
        }
        double holdMs = holdMs(isl);
        return workers(load.requestsPerSecond() * holdMs / 1e3, model.ttftAloneMs(isl), holdMs, load.prefillCv2(),
                slo.ttftMs() / load.prefillCorrection());
    }

    /** Decode workers needed (fractional); 0 without traffic. */
    public double decode(Prediction load) {
        if (!(load.requestsPerSecond() > 0) || !(load.outputTokens() > 0)) {
            return 0;
        }
        double context = context(load);
        double target = slo.itlMs() / load.decodeCorrection();
        double throughput = model.decodeTokensPerSecond(target, context);
        if (throughput == 0) { // even one sequence is slower than the target: as many workers as sequences
            throughput = 1e3 / model.itlMs(1, context);
        }
        return load.requestsPerSecond() * load.outputTokens() / throughput;
    }

    /** Aggregated workers needed: the prefill and decode shares of their time together. */
    public double aggregated(Prediction load) {
        return prefill(load) + decode(load);
    }

    /**
     * The 90th percentile of TTFT (ms) the profile expects at this load on {@code workers} prefilling workers;
     * infinite when they are saturated.
     */
    public double expectedTtftP90Ms(double requestsPerSecond, double inputTokens, double cacheHitRatio,
                                    double prefillCv2, int workers) {
        double isl = Math.max(1, uncachedInput(inputTokens, cacheHitRatio));
        double holdMs = holdMs(isl);
        return ttftPercentileMs(workers, requestsPerSecond * holdMs / 1e3, PromptTimes.of(model.ttftAloneMs(isl),
                prefillCv2), holdMs, prefillCv2, OBSERVED_QUANTILE);
    }

    /** The ITL (ms) the profile expects with {@code sequencesPerWorker} decoding at the load's mean context. */
    public double expectedItlMs(double sequencesPerWorker, double inputTokens, double outputTokens) {
        return model.itlMs(Math.max(1, sequencesPerWorker), inputTokens + outputTokens / 2);
    }

    /**
     * Workers (fractional) that carry {@code busy} workers' worth of prompts with the TTFT percentile of the
     * targets' quantile within {@code targetMs}: prompts of mean own time {@code ownMs} holding a worker for
     * {@code holdMs} each, their times of squared coefficient of variation {@code cv2} (alike when NaN).
     */
    double workers(double busy, double ownMs, double holdMs, double cv2, double targetMs) {
        PromptTimes own = PromptTimes.of(ownMs, cv2);
        if (own.percentileMs(slo.quantile(), 0, 0) >= targetMs) {
            return busy / UNREACHABLE_TTFT_UTILISATION;
        }
        // no c with 0.95 c below the load can carry it: start at the first that might
        int c = Math.max(1, (int) Math.ceil(busy / MAX_BUSY_PER_WORKER - 1e-9));
        double carriedBelow = capacity(c - 1, own, holdMs, cv2, targetMs);
        while (true) {
            double carried = capacity(c, own, holdMs, cv2, targetMs);
            if (carried >= busy) {
                return c - 1 + (busy - carriedBelow) / (carried - carriedBelow);
            }
            carriedBelow = carried;
            c++;
        }
    }

    /** The most load {@code c} workers carry with the targets' TTFT percentile within {@code targetMs}. */
    private double capacity(int c, PromptTimes own, double holdMs, double cv2, double targetMs) {
        if (c == 0) {
            return 0;
        }
        double high = MAX_BUSY_PER_WORKER * c;
        if (ttftPercentileMs(c, high, own, holdMs, cv2, slo.quantile()) <= targetMs) {
            return high;
        }
        double low = 0;
        for (int i = 0; i < 32; i++) {
            double mid = (low + high) / 2;
            if (ttftPercentileMs(c, mid, own, holdMs, cv2, slo.quantile()) <= targetMs) {
                low = mid;
            } else {
                high = mid;
            }
        }
        return low;
    }

    /**
     * The {@code quantile} of TTFT with {@code c} workers carrying {@code busy} workers' worth of prompts: a
     * prompt's own time plus an M/G/c wait (Erlang C, Allen–Cunneen); infinite when saturated.
     */
    static double ttftPercentileMs(int c, double busy, PromptTimes own, double holdMs, double cv2, double quantile) {
        if (busy >= c) {
            return Double.POSITIVE_INFINITY;
        }
        double waitScaleMs = holdMs * (1 + known(cv2)) / (2 * (c - busy));
        return own.percentileMs(quantile, erlangC(c, busy), waitScaleMs);
    }

    /** The probability that a prompt waits, {@code c} servers carrying {@code a} (< c) by Erlang's C formula. */
    static double erlangC(int c, double a) {
        double blocking = 1; // Erlang B by its recursion, stable for large c
        for (int k = 1; k <= c; k++) {
            blocking = a * blocking / (k + a * blocking);
        }
        return c * blocking / (c - a * (1 - blocking));
    }

    /** Worker milliseconds one prompt of {@code isl} uncached tokens holds. */
    private double holdMs(double isl) {
        return 1e3 * isl / model.prefillTokensPerSecond(isl);
    }

    private static double known(double cv2) {
        return Double.isNaN(cv2) ? 0 : cv2;
    }

    /** The prompt tokens computed per request: those not served from cache (all while the hit ratio is unknown). */
    private static double uncachedInput(double inputTokens, double cacheHitRatio) {
        return inputTokens * (1 - (Double.isNaN(cacheHitRatio) ? 0 : cacheHitRatio));
    }

    private static double context(Prediction load) {
        return load.inputTokens() + load.outputTokens() / 2;
    }
}

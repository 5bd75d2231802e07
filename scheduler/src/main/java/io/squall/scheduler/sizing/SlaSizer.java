package io.squall.scheduler.sizing;

import io.squall.scheduler.Decision.Prediction;
import io.squall.scheduler.PlannerConfig.Slo;

/**
 * Replicas from a profile and latency targets, per pool, for a predicted load:
 * <ul>
 *   <li><b>prefill</b>: the uncached prompt tokens per second, {@code λ · isl · (1 − hit)}, over one worker's prefill
 *       throughput at that length, held to the utilisation {@code ρ} at which the 90th percentile of TTFT still meets
 *       the target {@code T}. Prompts of mean service time {@code s} (the profile's TTFT alone, times the prefill
 *       correction) and squared coefficient of variation {@code c²} arriving at random queue as in an M/G/1 queue:
 *       the mean wait is {@code ρ s (1 + c²) / 2(1 − ρ)} (Pollaczek–Khinchine), and the wait's tail is about
 *       exponential, {@code P(W > t) ≈ ρ · exp(−t / θ)} with {@code θ = s (1 + c²) / 2(1 − ρ)}; so the 90th
 *       percentile is {@code s + θ · ln(10ρ)} and {@code ρ} is the largest that keeps it within {@code T}. Long
 *       prompts among short ones ({@code c²} about 1.4 in Mooncake's traces) need far more headroom than prompts
 *       of one length;</li>
 *   <li><b>decode</b>: the output tokens per second, {@code λ · osl}, over the most one worker decodes while keeping
 *       ITL within the target (divided by the decode correction) at the mean context {@code isl + osl/2};</li>
 *   <li><b>aggregated</b>: both shares of a worker's time added up.</li>
 * </ul>
 * Immutable.
 */
public final class SlaSizer {

    /** The utilisation used when the TTFT target is below a lone prompt's time (it cannot be met at any size). */
    static final double UNREACHABLE_TTFT_UTILISATION = 0.5;
    private static final double MAX_UTILISATION = 0.95;
    /** The share of requests whose TTFT the target bounds (the targets are 90th percentiles). */
    private static final double QUANTILE = 0.9;

    private final PerformanceModel model;
    private final Slo slo;

    public SlaSizer(PerformanceModel model, Slo slo) {
        this.model = model;
        this.slo = slo;
    }

    /** Prefill workers needed (fractional); 0 without traffic. */
    public double prefill(Prediction load) {
        double isl = uncachedInput(load);
        if (!(load.requestsPerSecond() > 0) || !(isl > 0)) {
            return 0;
        }
        double service = model.ttftAloneMs(isl) * load.prefillCorrection();
        double throughput = model.prefillTokensPerSecond(isl) / load.prefillCorrection();
        return load.requestsPerSecond() * isl / (throughput * utilisation(service, load.prefillCv2()));
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
     * The mean TTFT (ms) the profile expects at this load on {@code workers} prefilling workers, by
     * Pollaczek–Khinchine; infinite when saturated.
     */
    public double expectedTtftMs(double requestsPerSecond, double inputTokens, double cacheHitRatio, double prefillCv2,
                                 int workers) {
        double isl = inputTokens * (1 - (Double.isNaN(cacheHitRatio) ? 0 : cacheHitRatio));
        double service = model.ttftAloneMs(Math.max(1, isl));
        if (workers == 0) {
            return Double.POSITIVE_INFINITY;
        }
        double rho = requestsPerSecond * isl / (model.prefillTokensPerSecond(isl) * workers);
        return rho >= 1 ? Double.POSITIVE_INFINITY : service + rho * service * (1 + known(prefillCv2)) / (2 * (1 - rho));
    }

    /** The ITL (ms) the profile expects with {@code sequencesPerWorker} decoding at the load's mean context. */
    public double expectedItlMs(double sequencesPerWorker, double inputTokens, double outputTokens) {
        return model.itlMs(Math.max(1, sequencesPerWorker), inputTokens + outputTokens / 2);
    }

    /**
     * The utilisation at which the 90th percentile of TTFT stays within the target for prompts of mean service time
     * {@code serviceMs} and squared coefficient of variation {@code cv2} (0 when NaN: prompts alike); {@link
     * #UNREACHABLE_TTFT_UTILISATION} when a lone prompt already misses it.
     */
    public double utilisation(double serviceMs, double cv2) {
        if (serviceMs >= slo.ttftMs()) {
            return UNREACHABLE_TTFT_UTILISATION;
        }
        // the percentile rises with ρ: bisect for the largest ρ that keeps it within the target
        double low = 0;
        double high = MAX_UTILISATION;
        if (ttftPercentileMs(high, serviceMs, cv2) <= slo.ttftMs()) {
            return high;
        }
        for (int i = 0; i < 50; i++) {
            double mid = (low + high) / 2;
            if (ttftPercentileMs(mid, serviceMs, cv2) <= slo.ttftMs()) {
                low = mid;
            } else {
                high = mid;
            }
        }
        return low;
    }

    /** The TTFT percentile of {@link #QUANTILE} at utilisation {@code rho}: service plus the wait's tail. */
    static double ttftPercentileMs(double rho, double serviceMs, double cv2) {
        double scale = serviceMs * (1 + known(cv2)) / (2 * (1 - rho));
        return serviceMs + scale * Math.max(0, Math.log(rho / (1 - QUANTILE)));
    }

    private static double known(double cv2) {
        return Double.isNaN(cv2) ? 0 : cv2;
    }

    private static double uncachedInput(Prediction load) {
        double hit = Double.isNaN(load.cacheHitRatio()) ? 0 : load.cacheHitRatio();
        return load.inputTokens() * (1 - hit);
    }

    private static double context(Prediction load) {
        return load.inputTokens() + load.outputTokens() / 2;
    }
}

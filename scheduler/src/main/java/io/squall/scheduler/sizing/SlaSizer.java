package io.squall.scheduler.sizing;

import io.squall.scheduler.Decision.Prediction;
import io.squall.scheduler.PlannerConfig.Slo;

/**
 * Replicas from a profile and latency targets, per pool, for a predicted load:
 * <ul>
 *   <li><b>prefill</b>: the uncached prompt tokens per second, {@code λ · isl · (1 − hit)}, over one worker's prefill
 *       throughput at that length, held to the utilisation {@code ρ} at which queueing still meets the TTFT target.
 *       With prompts of service time {@code s} (the profile's TTFT alone, times the prefill correction) arriving at
 *       random, an M/D/1 queue waits {@code ρs / 2(1 − ρ)}, so {@code s + ρs/2(1−ρ) ≤ T} gives
 *       {@code ρ ≤ 2(T − s) / (2(T − s) + s)};</li>
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
        return load.requestsPerSecond() * isl / (throughput * utilisation(service));
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

    /** The TTFT (ms) the profile expects at this load on {@code workers} prefilling workers; infinite when saturated. */
    public double expectedTtftMs(double requestsPerSecond, double inputTokens, double cacheHitRatio, int workers) {
        double isl = inputTokens * (1 - (Double.isNaN(cacheHitRatio) ? 0 : cacheHitRatio));
        double service = model.ttftAloneMs(Math.max(1, isl));
        if (workers == 0) {
            return Double.POSITIVE_INFINITY;
        }
        double rho = requestsPerSecond * isl / (model.prefillTokensPerSecond(isl) * workers);
        return rho >= 1 ? Double.POSITIVE_INFINITY : service + rho * service / (2 * (1 - rho));
    }

    /** The ITL (ms) the profile expects with {@code sequencesPerWorker} decoding at the load's mean context. */
    public double expectedItlMs(double sequencesPerWorker, double inputTokens, double outputTokens) {
        return model.itlMs(Math.max(1, sequencesPerWorker), inputTokens + outputTokens / 2);
    }

    /** The utilisation at which a prefill of {@code serviceMs} still meets the TTFT target, by M/D/1. */
    double utilisation(double serviceMs) {
        double slack = slo.ttftMs() - serviceMs;
        if (slack <= 0) {
            return UNREACHABLE_TTFT_UTILISATION;
        }
        return Math.min(MAX_UTILISATION, 2 * slack / (2 * slack + serviceMs));
    }

    private static double uncachedInput(Prediction load) {
        double hit = Double.isNaN(load.cacheHitRatio()) ? 0 : load.cacheHitRatio();
        return load.inputTokens() * (1 - hit);
    }

    private static double context(Prediction load) {
        return load.inputTokens() + load.outputTokens() / 2;
    }
}

package io.squall.scheduler.sizing;

import io.squall.scheduler.profile.Profile;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One worker's speed as its {@link Profile}'s tables give it, interpolated linearly between measured points and
 * extended along the last segment beyond them: time to first token of a prompt alone by length, prefill throughput,
 * and inter-token latency by running sequences and context (bilinear: along the context for each measured batch,
 * then along the batch). Immutable.
 */
public final class PerformanceModel {

    private final Profile.WorkerShape worker;
    private final double[] isls;
    private final double[] ttfts;
    private final double[] batches;
    /** Per measured batch: its contexts and ITLs. */
    private final List<double[][]> decodeByBatch = new ArrayList<>();

    /** @throws IllegalArgumentException if the profile lacks a prefill or a decode table */
    public PerformanceModel(Profile profile) {
        if (profile.prefill().isEmpty() || profile.decode().isEmpty()) {
            throw new IllegalArgumentException("profile " + profile.model() + " on " + profile.hardware()
                    + " has no prefill or no decode table; measure one with squall bench profile");
        }
        this.worker = profile.worker();
        this.isls = profile.prefill().stream().mapToDouble(Profile.PrefillPoint::isl).toArray();
        this.ttfts = profile.prefill().stream().mapToDouble(Profile.PrefillPoint::ttftMs).toArray();
        Map<Integer, List<Profile.DecodePoint>> byBatch = new TreeMap<>();
        profile.decode().forEach(p -> byBatch.computeIfAbsent(p.batch(), b -> new ArrayList<>()).add(p));
        this.batches = byBatch.keySet().stream().mapToDouble(Integer::doubleValue).toArray();
        for (List<Profile.DecodePoint> points : byBatch.values()) {
            decodeByBatch.add(new double[][] {
                    points.stream().mapToDouble(Profile.DecodePoint::context).toArray(),
                    points.stream().mapToDouble(Profile.DecodePoint::itlMs).toArray()});
        }
    }

    public Profile.WorkerShape worker() {
        return worker;
    }

    /** Milliseconds to the first token of an {@code isl}-token prompt alone on a worker. */
    public double ttftAloneMs(double isl) {
        return Math.max(1e-3, interpolate(isls, ttfts, isl));
    }

    /**
     * Prompt tokens per second one worker computes at prompts of {@code isl} tokens: a long prompt alone fills its
     * steps; shorter ones are batched until a step holds {@code maxBatchedTokens}, so they go as fast as one prompt
     * of that length.
     */
    public double prefillTokensPerSecond(double isl) {
        double effective = Math.max(isl, worker.maxBatchedTokens());
        return effective / ttftAloneMs(effective) * 1e3;
    }

    /** Milliseconds between tokens when {@code batch} sequences decode at {@code context} tokens each. */
    public double itlMs(double batch, double context) {
        double[] atBatch = new double[batches.length];
        for (int i = 0; i < batches.length; i++) {
            double[][] points = decodeByBatch.get(i);
            atBatch[i] = interpolate(points[0], points[1], context);
        }
        return Math.max(1e-3, interpolate(batches, atBatch, batch));
    }

    /**
     * The most sequences one worker can decode at {@code context} tokens with a token every {@code itlMs} at most,
     * bounded by its batch limit and by what its KV memory holds; 0 when even one sequence is slower than that.
     */
    public double maxBatchWithin(double itlMs, double context) {
        double memory = Math.max(1, worker.kvCapacityTokens() / Math.max(1, context + worker.blockSize()));
        double limit = Math.min(worker.maxSequences(), memory);
        if (itlMs(1, context) > itlMs) {
            return 0;
        }
        if (itlMs(limit, context) <= itlMs) {
            return limit;
        }
        double lo = 1;
        double hi = limit;
        for (int i = 0; i < 40; i++) {
            double mid = (lo + hi) / 2;
            if (itlMs(mid, context) <= itlMs) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** Output tokens per second one worker decodes at {@code context} while keeping ITL within {@code itlMs}; 0 if it cannot. */
    public double decodeTokensPerSecond(double itlMs, double context) {
        double batch = maxBatchWithin(itlMs, context);
        return batch == 0 ? 0 : batch / itlMs(batch, context) * 1e3;
    }

    /** Piecewise-linear through (xs, ys), xs ascending; constant with one point; the end segments extended. */
    static double interpolate(double[] xs, double[] ys, double x) {
        int n = xs.length;
        if (n == 1) {
            return ys[0];
        }
        int hi = 1;
        while (hi < n - 1 && xs[hi] < x) {
            hi++;
        }
        int lo = hi - 1;
        double span = xs[hi] - xs[lo];
        if (span <= 0) {
            return ys[hi];
        }
        return ys[lo] + (ys[hi] - ys[lo]) * (x - xs[lo]) / span;
    }
}

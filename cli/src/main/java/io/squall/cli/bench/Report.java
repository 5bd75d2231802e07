package io.squall.cli.bench;

import io.squall.functions.api.CacheSources;

import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Pattern;

/** Turns results into the {@code squall bench serve} report (DESIGN §11a). */
public final class Report {

    private static final Pattern NUMBER = Pattern.compile("\\d+(\\.\\d+)?");

    private Report() {
    }

    /**
     * One request as it was sent and answered.
     *
     * @param request       what was sent, or null when it was not kept (a long trace's prompts)
     * @param sentNanos     when, from the start of the run
     * @param lagNanos      how late the load generator sent it against its schedule (0 for a closed loop)
     * @param outcome       what came back
     * @param ceilingTokens the prompt tokens the cache oracle serves, when the runner computed them as it sent
     *                      (else -1, and the report computes them from the request)
     */
    public record Result(BenchRequest request, long sentNanos, long lagNanos, Outcome outcome, int ceilingTokens) {

        /** A kept request whose ceiling the report computes. */
        public Result(BenchRequest request, long sentNanos, long lagNanos, Outcome outcome) {
            this(request, sentNanos, lagNanos, outcome, -1);
        }
    }

    /**
     * A finished run.
     *
     * @param results       every request, in the order they were sent
     * @param durationNanos wall-clock time of the whole run
     */
    public record Run(List<Result> results, long durationNanos) {
        public Run {
            results = results.stream().sorted(Comparator.comparingLong(Result::sentNanos)).toList();
        }

        List<Outcome> outcomes() {
            return results.stream().map(Result::outcome).toList();
        }
    }

    /**
     * How to read a run.
     *
     * @param speedup     simulated seconds per wall-clock second of mock workers: times are reported in simulated
     *                    time (wall × speedup), rates per simulated second
     * @param kvBlockSize tokens per KV block, for the cache-hit ceiling
     * @param tokens      the token ids a request's prompt became, for the ceiling; null to skip it
     */
    public record Options(double speedup, int kvBlockSize, Function<BenchRequest, int[]> tokens) {
        public Options {
            if (!(speedup > 0) || kvBlockSize < 1) {
                throw new IllegalArgumentException("speedup must be positive and the KV block size at least 1");
            }
        }

        /** Wall-clock time, no ceiling: for a run against a real engine with nothing known about its blocks. */
        public static Options wallClock() {
            return new Options(1, 16, null);
        }
    }

    /**
     * Milliseconds of the successful requests' TTFTs, ITLs, TPOTs and latencies, in the run's (simulated) time. The
     * ITLs are every gap between two tokens of every request, pooled; the TPOTs are one per request of two tokens or
     * more, (latency − TTFT) / (output tokens − 1): vLLM's "TPOT", which AIPerf and genai-perf call "inter-token
     * latency". Their tails differ: a stall of one step is 1 gap in the pool, but it raises the TPOT of every request
     * it holds.
     */
    record Samples(double[] ttftMs, double[] itlMs, double[] tpotMs, double[] latencyMs) {
        static Samples of(Run run, double speedup) {
            List<Outcome> ok = run.outcomes().stream().filter(Outcome::ok).toList();
            LongList itl = new LongList();
            ok.forEach(o -> itl.addAll(o.itlNanos()));
            long[] tpot = ok.stream().filter(o -> o.ttftNanos() >= 0 && o.outputTokens() > 1)
                    .mapToLong(o -> (o.latencyNanos() - o.ttftNanos()) / (o.outputTokens() - 1)).toArray();
            return new Samples(millis(ok.stream().mapToLong(Outcome::ttftNanos).filter(t -> t >= 0).toArray(), speedup),
                    millis(itl.toArray(), speedup), millis(tpot, speedup),
                    millis(ok.stream().mapToLong(Outcome::latencyNanos).toArray(), speedup));
        }

        private static double[] millis(long[] nanos, double speedup) {
            double[] ms = new double[nanos.length];
            for (int i = 0; i < nanos.length; i++) {
                ms[i] = nanos[i] / 1e6 * speedup;
            }
            Arrays.sort(ms);
            return ms;
        }
    }

    /**
     * The report object: requests, errors, duration_s, ttft_ms, itl_ms, tpot_ms, latency_ms, throughputs,
     * error_kinds, the prompt-cache hit rate (the cached tokens by tier when every request said where they came from)
     * and its ceiling (with the router's efficiency, their ratio) and per-request routing.
     */
    public static Map<String, Object> of(Run run, Options options) {
        Samples samples = Samples.of(run, options.speedup());
        long errors = run.outcomes().stream().filter(o -> !o.ok()).count();
        long tokens = run.outcomes().stream().filter(Outcome::ok).mapToLong(Outcome::outputTokens).sum();
        double seconds = run.durationNanos() / 1e9 * options.speedup();
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("requests", run.results().size());
        report.put("errors", errors);
        report.put("duration_s", round(seconds));
        report.put("ttft_ms", summary(samples.ttftMs()));
        report.put("itl_ms", summary(samples.itlMs()));
        report.put("tpot_ms", summary(samples.tpotMs()));
        report.put("latency_ms", summary(samples.latencyMs()));
        report.put("output_tokens_per_second", round(tokens / seconds));
        report.put("requests_per_second", round((run.results().size() - errors) / seconds));
        report.put("error_kinds", errorKinds(run.outcomes()));
        if (options.speedup() != 1) {
            report.put("speedup", options.speedup());
        }
        report.put("send_lag_ms", summary(Samples.millis(run.results().stream().mapToLong(Result::lagNanos).toArray(), 1)));
        cache(report, run, options);
        return report;
    }

    /**
     * Failures grouped by their message with numbers blanked ({@code N}), so "the prompt needs 219 KV blocks" and
     * "the prompt needs 230 KV blocks" are one kind; most frequent first.
     */
    static Map<String, Long> errorKinds(List<Outcome> outcomes) {
        Map<String, Long> counts = new TreeMap<>();
        outcomes.stream().filter(o -> !o.ok())
                .forEach(o -> counts.merge(NUMBER.matcher(o.error()).replaceAll("N"), 1L, Long::sum));
        Map<String, Long> ordered = new LinkedHashMap<>();
        counts.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .forEach(e -> ordered.put(e.getKey(), e.getValue()));
        return ordered;
    }

    /** Cache hit rate, its oracle ceiling, the router's efficiency and per-request routing. */
    private static void cache(Map<String, Object> report, Run run, Options options) {
        CacheCeiling ceiling = options.tokens() == null ? null : new CacheCeiling(options.kvBlockSize());
        long prompt = 0;
        long cached = 0;
        long oracle = 0;
        CacheSources byTier = CacheSources.NONE;
        Map<String, Map<String, Long>> byWorker = new TreeMap<>();
        List<Map<String, Object>> requests = new java.util.ArrayList<>();
        for (Result result : run.results()) {
            Outcome outcome = result.outcome();
            Outcome.Served served = outcome.served();
            Integer best = result.ceilingTokens() >= 0 ? Integer.valueOf(result.ceilingTokens())
                    : ceiling == null || result.request() == null ? null
                    : Integer.valueOf(ceiling.offer(options.tokens().apply(result.request())));
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("sent_ms", round(result.sentNanos() / 1e6 * options.speedup()));
            entry.put("worker", served.worker());
            entry.put("overlap_blocks", served.overlapBlocks() < 0 ? null : served.overlapBlocks());
            entry.put("prompt_tokens", served.promptTokens() < 0 ? null : served.promptTokens());
            entry.put("cached_tokens", served.cachedTokens() < 0 ? null : served.cachedTokens());
            entry.put("ceiling_cached_tokens", best);
            entry.put("ttft_ms", outcome.ttftNanos() < 0 ? null : round(outcome.ttftNanos() / 1e6 * options.speedup()));
            entry.put("latency_ms", round(outcome.latencyNanos() / 1e6 * options.speedup()));
            entry.put("output_tokens", outcome.outputTokens());
            if (served.migrations() > 0) {
                entry.put("migrations", served.migrations());
            }
            if (!outcome.ok()) {
                entry.put("error", outcome.error());
            }
            requests.add(entry);
            if (outcome.ok() && served.promptTokens() >= 0 && served.cachedTokens() >= 0) {
                prompt += served.promptTokens();
                cached += served.cachedTokens();
                byTier = byTier == null || served.cachedByTier() == null ? null : byTier.plus(served.cachedByTier());
                oracle += best == null ? 0 : best;
                if (served.worker() != null) {
                    Map<String, Long> worker = byWorker.computeIfAbsent(served.worker(), w -> new LinkedHashMap<>());
                    worker.merge("requests", 1L, Long::sum);
                    worker.merge("prompt_tokens", (long) served.promptTokens(), Long::sum);
                    worker.merge("cached_tokens", (long) served.cachedTokens(), Long::sum);
                }
            }
        }
        report.put("cache_hit_rate", prompt == 0 ? null : round((double) cached / prompt));
        report.put("cached_tokens_by_tier", prompt == 0 || byTier == null ? null : byTier(byTier));
        boolean known = ceiling != null || run.results().stream().anyMatch(r -> r.ceilingTokens() >= 0);
        report.put("cache_hit_ceiling", prompt == 0 || !known ? null : round((double) oracle / prompt));
        report.put("router_efficiency", oracle == 0 ? null : round((double) cached / oracle));
        Map<String, Object> routing = new LinkedHashMap<>();
        routing.put("by_worker", byWorker);
        routing.put("requests", requests);
        report.put("routing", routing);
    }

    /** The cached prompt tokens by the tier they came from: {@code {g1, g2, g3, remote}}. */
    private static Map<String, Integer> byTier(CacheSources sources) {
        Map<String, Integer> tiers = new LinkedHashMap<>();
        tiers.put("g1", sources.g1());
        tiers.put("g2", sources.g2());
        tiers.put("g3", sources.g3());
        tiers.put("remote", sources.remote());
        return tiers;
    }

    private static Map<String, Double> summary(double[] sorted) {
        Map<String, Double> summary = new LinkedHashMap<>();
        summary.put("mean", round(Arrays.stream(sorted).average().orElse(0)));
        summary.put("p50", round(percentile(sorted, 50)));
        summary.put("p90", round(percentile(sorted, 90)));
        summary.put("p99", round(percentile(sorted, 99)));
        return summary;
    }

    /** Nearest-rank percentile of sorted values; 0 when empty. */
    static double percentile(double[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(p / 100 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    private static double round(double value) {
        return Math.round(value * 1000) / 1000.0;
    }
}

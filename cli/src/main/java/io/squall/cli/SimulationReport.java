package io.squall.cli;

import io.squall.cli.bench.LinePlot;
import io.squall.cli.bench.Outcome;
import io.squall.cli.bench.Report;
import io.squall.scheduler.Decision;
import io.squall.scheduler.PlannerConfig;
import io.squall.scheduler.Pool;
import io.squall.scheduler.observe.Traffic;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code squall planner simulate} reports: the planner's intervals (observed, predicted, replicas), the share of
 * requests that met both latency targets, and the worker-seconds the pools used, all in simulated time.
 */
final class SimulationReport {

    private SimulationReport() {
    }

    static Map<String, Object> of(List<Decision> decisions, Report.Run run, PlannerConfig config, double speedup,
                                  boolean fixed) {
        Map<String, Object> report = new LinkedHashMap<>();
        List<Map<String, Object>> intervals = new ArrayList<>();
        double workerSeconds = 0;
        double previous = 0;
        for (Decision d : decisions) {
            Map<String, Object> interval = new LinkedHashMap<>();
            double t = d.observed().atSeconds();
            interval.put("t_s", round(t));
            Traffic o = d.observed().traffic();
            interval.put("observed", figures("request_rate", o.requestsPerSecond(), "isl", o.inputTokens(),
                    "osl", o.outputTokens(), "cache_hit_ratio", o.cacheHitRatio(), "ttft_ms", o.ttftMs(),
                    "ttft_p90_ms", o.ttftP90Ms(), "itl_ms", o.itlMs(), "itl_p90_ms", o.itlP90Ms()));
            Decision.Prediction p = d.predicted();
            interval.put("predicted", figures("request_rate", p.requestsPerSecond(), "isl", p.inputTokens(),
                    "osl", p.outputTokens()));
            Map<String, Integer> replicas = new LinkedHashMap<>();
            Map<String, Integer> targets = new LinkedHashMap<>();
            int current = 0;
            for (Pool pool : config.pools().keySet()) {
                Decision.PoolPlan plan = d.pools().get(pool);
                replicas.put(name(pool), plan.current());
                targets.put(name(pool), plan.target());
                current += plan.current();
            }
            interval.put("replicas", replicas);
            if (!fixed) {
                interval.put("targets", targets);
            }
            intervals.add(interval);
            workerSeconds += current * (t - previous);
            previous = t;
        }
        long met = run.results().stream().filter(r -> meets(r.outcome(), config.slo(), speedup)).count();
        Map<String, Object> bench = Report.of(run, new Report.Options(speedup, 16, null));
        report.put("intervals", intervals);
        report.put("slo_attainment", run.results().isEmpty() ? null : round(met / (double) run.results().size()));
        report.put("worker_seconds", round(workerSeconds));
        report.put("attainment_by_minute", byMinute(run, config.slo(), speedup));
        report.put("requests", bench.get("requests"));
        report.put("errors", bench.get("errors"));
        report.put("error_kinds", bench.get("error_kinds"));
        report.put("ttft_ms", bench.get("ttft_ms"));
        report.put("itl_ms", bench.get("itl_ms"));
        report.put("latency_ms", bench.get("latency_ms"));
        report.put("cache_hit_rate", bench.get("cache_hit_rate"));
        report.put("targets", Map.of("ttft_ms", config.slo().ttftMs(), "itl_ms", config.slo().itlMs()));
        report.put("speedup", speedup);
        return report;
    }

    /**
     * Whether a request met both targets: its first token within the TTFT target and its mean time per output token
     * after the first within the ITL target (a failed request meets neither).
     */
    static boolean meets(Outcome outcome, PlannerConfig.Slo slo, double speedup) {
        return !failed(outcome) && ttftMs(outcome, speedup) <= slo.ttftMs() && tpotMs(outcome, speedup) <= slo.itlMs();
    }

    private static boolean failed(Outcome outcome) {
        return outcome.error() != null || outcome.ttftNanos() < 0;
    }

    private static double ttftMs(Outcome outcome, double speedup) {
        return outcome.ttftNanos() / 1e6 * speedup;
    }

    /** Mean time per output token after the first, in simulated milliseconds. */
    private static double tpotMs(Outcome outcome, double speedup) {
        return outcome.outputTokens() <= 1 ? 0
                : (outcome.latencyNanos() - outcome.ttftNanos()) / 1e6 * speedup / (outcome.outputTokens() - 1);
    }

    /**
     * Per minute of simulated time, by when requests were sent: how many, how many met both targets, and why the
     * others did not (a late first token, slow tokens after it — a request with both counts in both — or an
     * error), so a run shows when it missed.
     */
    static List<Map<String, Integer>> byMinute(Report.Run run, PlannerConfig.Slo slo, double speedup) {
        List<Map<String, Integer>> minutes = new ArrayList<>();
        for (Report.Result result : run.results()) {
            int minute = (int) (result.sentNanos() / 1e9 * speedup / 60);
            while (minutes.size() <= minute) {
                Map<String, Integer> counts = new LinkedHashMap<>();
                counts.put("from_s", minutes.size() * 60);
                for (String key : List.of("requests", "met", "late_first_token", "slow_tokens", "failed")) {
                    counts.put(key, 0);
                }
                minutes.add(counts);
            }
            Map<String, Integer> counts = minutes.get(minute);
            counts.merge("requests", 1, Integer::sum);
            Outcome outcome = result.outcome();
            if (failed(outcome)) {
                counts.merge("failed", 1, Integer::sum);
                continue;
            }
            boolean late = ttftMs(outcome, speedup) > slo.ttftMs();
            boolean slow = tpotMs(outcome, speedup) > slo.itlMs();
            counts.merge("late_first_token", late ? 1 : 0, Integer::sum);
            counts.merge("slow_tokens", slow ? 1 : 0, Integer::sum);
            counts.merge("met", late || slow ? 0 : 1, Integer::sum);
        }
        return minutes;
    }

    /** Replicas, request rate and the two latencies against their targets, over time. */
    static List<LinePlot.Panel> panels(List<Decision> decisions, PlannerConfig config) {
        double[] t = decisions.stream().mapToDouble(d -> d.observed().atSeconds()).toArray();
        List<LinePlot.Series> replicas = new ArrayList<>();
        for (Pool pool : config.pools().keySet()) {
            replicas.add(new LinePlot.Series(name(pool), t,
                    decisions.stream().mapToDouble(d -> d.pools().get(pool).current()).toArray()));
        }
        return List.of(
                new LinePlot.Panel("workers", replicas, List.of()),
                new LinePlot.Panel("requests/s", List.of(
                        new LinePlot.Series("observed", t, decisions.stream()
                                .mapToDouble(d -> d.observed().traffic().requestsPerSecond()).toArray()),
                        new LinePlot.Series("predicted", t, decisions.stream()
                                .mapToDouble(d -> d.predicted().requestsPerSecond()).toArray())), List.of()),
                new LinePlot.Panel("TTFT p90 (ms)", List.of(new LinePlot.Series("ttft p90", t, decisions.stream()
                        .mapToDouble(d -> d.observed().traffic().ttftP90Ms()).toArray())),
                        List.of(new LinePlot.Reference("target", config.slo().ttftMs()))),
                new LinePlot.Panel("ITL p90 (ms)", List.of(new LinePlot.Series("itl p90", t, decisions.stream()
                        .mapToDouble(d -> d.observed().traffic().itlP90Ms()).toArray())),
                        List.of(new LinePlot.Reference("target", config.slo().itlMs()))));
    }

    private static Map<String, Double> figures(Object... namesAndValues) {
        Map<String, Double> figures = new LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            double value = (double) namesAndValues[i + 1];
            figures.put((String) namesAndValues[i], Double.isFinite(value) ? round(value) : null);
        }
        return figures;
    }

    private static String name(Pool pool) {
        return pool.name().toLowerCase(Locale.ROOT);
    }

    private static double round(double value) {
        return Math.round(value * 1000) / 1000.0;
    }
}

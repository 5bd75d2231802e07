package io.squall.cli.bench;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Turns outcomes into the {@code squall bench serve} report (DESIGN §11a). */
public final class Report {

    private Report() {
    }

    /**
     * A finished run.
     *
     * @param outcomes      every request's outcome
     * @param durationNanos wall-clock time of the whole run
     */
    public record Run(List<Outcome> outcomes, long durationNanos) {
    }

    /** Milliseconds of the successful requests' TTFTs, ITLs and latencies. */
    record Samples(double[] ttftMs, double[] itlMs, double[] latencyMs) {
        static Samples of(Run run) {
            List<Outcome> ok = run.outcomes().stream().filter(Outcome::ok).toList();
            LongList itl = new LongList();
            ok.forEach(o -> itl.addAll(o.itlNanos()));
            return new Samples(millis(ok.stream().mapToLong(Outcome::ttftNanos).filter(t -> t >= 0).toArray()),
                    millis(itl.toArray()), millis(ok.stream().mapToLong(Outcome::latencyNanos).toArray()));
        }

        private static double[] millis(long[] nanos) {
            double[] ms = new double[nanos.length];
            for (int i = 0; i < nanos.length; i++) {
                ms[i] = nanos[i] / 1e6;
            }
            Arrays.sort(ms);
            return ms;
        }
    }

    /** The report object: requests, errors, duration_s, ttft_ms, itl_ms, latency_ms, throughputs. */
    public static Map<String, Object> of(Run run) {
        Samples samples = Samples.of(run);
        long errors = run.outcomes().stream().filter(o -> !o.ok()).count();
        long tokens = run.outcomes().stream().filter(Outcome::ok).mapToLong(Outcome::outputTokens).sum();
        double seconds = run.durationNanos() / 1e9;
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("requests", run.outcomes().size());
        report.put("errors", errors);
        report.put("duration_s", round(seconds));
        report.put("ttft_ms", summary(samples.ttftMs()));
        report.put("itl_ms", summary(samples.itlMs()));
        report.put("latency_ms", summary(samples.latencyMs()));
        report.put("output_tokens_per_second", round(tokens / seconds));
        report.put("requests_per_second", round((run.outcomes().size() - errors) / seconds));
        return report;
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

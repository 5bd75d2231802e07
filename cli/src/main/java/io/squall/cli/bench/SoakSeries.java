package io.squall.cli.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The soak's time series: one row per sample ({@code t_s} and every figure by name), and the summary the soak is
 * judged by: for each series its value at the first sample after warm-up and at the last sample under load, the
 * least and most after warm-up, and its least-squares slope per hour after warm-up. Not thread-safe.
 */
final class SoakSeries {

    /** The figures sampled, in the order they are reported. */
    static final List<String> NAMES = List.of("heap_after_gc_bytes", "heap_committed_bytes", "rss_bytes", "threads", "open_files",
            "direct_buffer_bytes", "direct_buffers", "kv_pages_in_use", "running_sequences", "requests_completed",
            "requests_failed");

    private final List<Map<String, Object>> rows = new ArrayList<>();

    /** Appends a sample taken {@code seconds} after the load started; {@code values} holds a number per name. */
    void add(double seconds, Map<String, ? extends Number> values) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("t_s", Math.round(seconds * 10) / 10.0);
        for (String name : NAMES) {
            Number value = values.get(name);
            if (value == null) {
                throw new IllegalArgumentException("a sample lacks " + name);
            }
            row.put(name, value);
        }
        rows.add(row);
    }

    List<Map<String, Object>> rows() {
        return List.copyOf(rows);
    }

    /** Per series: start and end after {@code warmupSeconds}, min, max and slope per hour; empty with too few samples. */
    Map<String, Map<String, Object>> summary(double warmupSeconds) {
        List<Map<String, Object>> after = rows.stream().filter(r -> ((Number) r.get("t_s")).doubleValue() >= warmupSeconds).toList();
        Map<String, Map<String, Object>> summary = new LinkedHashMap<>();
        if (after.size() < 2) {
            return summary;
        }
        for (String name : NAMES) {
            double[] t = after.stream().mapToDouble(r -> ((Number) r.get("t_s")).doubleValue()).toArray();
            double[] y = after.stream().mapToDouble(r -> ((Number) r.get(name)).doubleValue()).toArray();
            Map<String, Object> series = new LinkedHashMap<>();
            series.put("start", y[0]);
            series.put("end", y[y.length - 1]);
            series.put("min", java.util.Arrays.stream(y).min().orElseThrow());
            series.put("max", java.util.Arrays.stream(y).max().orElseThrow());
            series.put("slope_per_hour", Math.round(slope(t, y) * 3600 * 1000) / 1000.0);
            summary.put(name, series);
        }
        return summary;
    }

    /** The least-squares slope of {@code y} against {@code t}. */
    static double slope(double[] t, double[] y) {
        double meanT = 0;
        double meanY = 0;
        for (int i = 0; i < t.length; i++) {
            meanT += t[i] / t.length;
            meanY += y[i] / t.length;
        }
        double covariance = 0;
        double variance = 0;
        for (int i = 0; i < t.length; i++) {
            covariance += (t[i] - meanT) * (y[i] - meanY);
            variance += (t[i] - meanT) * (t[i] - meanT);
        }
        return variance == 0 ? 0 : covariance / variance;
    }
}

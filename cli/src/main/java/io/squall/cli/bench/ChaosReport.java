package io.squall.cli.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one fault did to the requests under load, judged against their uninterrupted output, and to the workers' KV
 * pools: the figures issue 14's chaos suite reports. Lost, different and leaked must all be 0.
 *
 * @param fault        the fault
 * @param variant      {@code aggregated} or {@code disaggregated}
 * @param victim       the stage it hit
 * @param results      every request of the run
 * @param faultNanos   when the fault was injected ({@link System#nanoTime()})
 * @param leakedPages  KV pages still held, over the workers, once every request had ended (against the baseline)
 * @param victimDisk   for a disk fault, what the victim's G3 tier did while the fault lasted (blocks held before and
 *                     after, blocks read, written and refused); null for other faults
 * @param remotePrefill in the disaggregated variant, the prompts the decode workers had prefilled remotely during the
 *                     run and their fallbacks to a local prefill by reason; null in the aggregated variant
 */
record ChaosReport(ChaosFault fault, String variant, String victim, List<ChaosLoad.Result> results, long faultNanos,
                   long leakedPages, Map<String, Long> victimDisk, Map<String, Long> remotePrefill) {

    ChaosReport {
        results = List.copyOf(results);
    }

    long count(ChaosLoad.Ending ending) {
        return results.stream().filter(r -> r.ending() == ending).count();
    }

    /** Whether no request was lost or answered wrong and no page leaked. */
    boolean clean() {
        return count(ChaosLoad.Ending.LOST) == 0 && count(ChaosLoad.Ending.DIFFERENT) == 0 && leakedPages == 0;
    }

    /**
     * Seconds from the fault to the end of the first request sent after it that completed identical: how soon the
     * cluster served again. -1 if none did.
     */
    double recoverySeconds() {
        return results.stream().filter(r -> r.sentNanos() >= faultNanos && r.ending() == ChaosLoad.Ending.IDENTICAL)
                .mapToLong(ChaosLoad.Result::endNanos).min().stream()
                .mapToDouble(end -> seconds(end - faultNanos)).findFirst().orElse(-1);
    }

    /**
     * Seconds from the fault to the end of the last request it disturbed (moved, resent or failed): how long its
     * effects lasted. 0 if it disturbed none.
     */
    double settledSeconds() {
        return results.stream().filter(ChaosLoad.Result::disrupted).mapToLong(ChaosLoad.Result::endNanos).max().stream()
                .mapToDouble(end -> Math.max(0, seconds(end - faultNanos))).findFirst().orElse(0);
    }

    Map<String, Object> json() {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("fault", fault.label());
        json.put("variant", variant);
        json.put("victim", victim);
        json.put("sent", results.size());
        json.put("identical", count(ChaosLoad.Ending.IDENTICAL));
        List<ChaosLoad.Result> failures = results.stream().filter(r -> r.ending() == ChaosLoad.Ending.TYPED_FAILURE).toList();
        Map<String, Long> typed = new TreeMap<>();
        failures.forEach(r -> typed.merge(r.errorType(), 1L, Long::sum));
        json.put("typed_failures", typed);
        double[] failing = failures.stream().mapToDouble(r -> round(seconds(r.endNanos() - faultNanos))).sorted().toArray();
        // when, from the fault, the typed failures came: the time the cluster refused work
        json.put("typed_failures_from_s", failing.length == 0 ? List.of() : List.of(failing[0], failing[failing.length - 1]));
        json.put("lost", count(ChaosLoad.Ending.LOST));
        json.put("duplicated_or_missing", count(ChaosLoad.Ending.DIFFERENT));
        json.put("leaked_pages", leakedPages);
        json.put("migrated", results.stream().filter(r -> r.migrations() > 0).count());
        json.put("resent_after_broken_connection", results.stream().filter(r -> r.attempts() > 1).count());
        long[] latencies = results.stream().filter(r -> r.ending() == ChaosLoad.Ending.IDENTICAL)
                .mapToLong(r -> r.endNanos() - r.sentNanos()).sorted().toArray();
        json.put("latency_p50_s", latencies.length == 0 ? -1 : round(seconds(latencies[latencies.length / 2])));
        json.put("latency_max_s", latencies.length == 0 ? -1 : round(seconds(latencies[latencies.length - 1])));
        json.put("recovery_s", round(recoverySeconds()));
        json.put("settled_s", round(settledSeconds()));
        if (victimDisk != null) {
            json.put("victim_g3_during_fault", victimDisk);
        }
        if (remotePrefill != null) {
            json.put("remote_prefill", remotePrefill);
        }
        List<String> problems = new ArrayList<>();
        results.stream().filter(r -> r.ending() != ChaosLoad.Ending.IDENTICAL).limit(5)
                .forEach(r -> problems.add(r.ending() + " prompt " + r.prompt() + ": " + r.error()));
        json.put("first_problems", problems);
        return json;
    }

    /** One line for the human summary. */
    String line() {
        Map<String, Object> j = json();
        return String.format("%-16s %-13s sent %4d  identical %4d  typed-failed %3d %s  lost %d  dup/missing %d  leaked %d"
                        + "  migrated %d  resent %d  latency p50 %s s max %s s  recovery %.1f s  settled %.1f s  (%s)",
                fault.label(), variant, results.size(), count(ChaosLoad.Ending.IDENTICAL),
                count(ChaosLoad.Ending.TYPED_FAILURE), j.get("typed_failures"), count(ChaosLoad.Ending.LOST),
                count(ChaosLoad.Ending.DIFFERENT), leakedPages, j.get("migrated"), j.get("resent_after_broken_connection"),
                j.get("latency_p50_s"), j.get("latency_max_s"), recoverySeconds(), settledSeconds(), victim) + (victimDisk == null ? "" : "  G3 " + victimDisk)
                + (remotePrefill == null ? "" : "  " + remotePrefill);
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }

    private static double round(double value) {
        return Math.round(value * 100) / 100.0;
    }
}

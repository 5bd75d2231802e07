package io.squall.cli.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What {@code squall bench fuzz} found, as JSON: per route the requests sent, those served (a mutation that is
 * still a valid request), typed error frames by code, untyped errors by kind and timeouts; the raw frames'
 * outcomes; the health checks after every batch; the first failures.
 *
 * @param untyped        untyped errors, INTERNAL errors (a stage's own fault, never right for malformed input) and
 *                       timeouts over every route and raw frame: what must be 0
 * @param workersBefore  the instance ids of the workers registered before the run
 * @param workersAfter   the same after it: a worker that crashed and came back registers under a new id
 */
record FuzzReport(long frames, long seed, double durationSeconds, Map<String, Map<String, Object>> routes,
                  Map<String, Long> rawFrames, long healthChecksPassed, long healthChecksFailed, long untyped,
                  List<String> failures, Set<String> workersBefore, Set<String> workersAfter) {

    FuzzReport {
        workersBefore = Set.copyOf(workersBefore);
        workersAfter = Set.copyOf(workersAfter);
    }

    static FuzzReport of(long frames, long seed, double seconds, Map<FuzzCases.Route, WireFuzzer.RouteCounts> counts,
                         Map<String, Long> raw, long healthPassed, long healthFailed, List<String> failures) {
        Map<String, Map<String, Object>> routes = new LinkedHashMap<>();
        long untyped = raw.getOrDefault(RawFrames.TIMEOUT, 0L);
        for (var entry : counts.entrySet()) {
            WireFuzzer.RouteCounts c = entry.getValue();
            Map<String, Object> route = new LinkedHashMap<>();
            route.put("sent", c.sent);
            route.put("served", c.served);
            route.put("typed_errors", Map.copyOf(c.typedErrors));
            route.put("untyped_errors", Map.copyOf(c.untypedErrors));
            route.put("timeouts", c.timeouts);
            routes.put(entry.getKey().wireName, route);
            untyped += c.timeouts + c.internalErrors + c.untypedErrors.values().stream().mapToLong(Long::longValue).sum();
        }
        return new FuzzReport(frames, seed, seconds, routes, Map.copyOf(raw), healthPassed, healthFailed, untyped,
                List.copyOf(failures), Set.of(), Set.of());
    }

    /** This report with the workers registered before and after the run. */
    FuzzReport withWorkers(Set<String> before, Set<String> after) {
        return new FuzzReport(frames, seed, durationSeconds, routes, rawFrames, healthChecksPassed, healthChecksFailed,
                untyped, failures, before, after);
    }

    /** Workers registered before the run that are gone after it (crashed, restarted or left). */
    long workerRestarts() {
        return workersBefore.stream().filter(id -> !workersAfter.contains(id)).count();
    }

    /**
     * Whether every request got a typed answer in time, every health check passed, and the same workers serve
     * after the run as before it.
     */
    boolean clean() {
        return untyped == 0 && healthChecksFailed == 0 && workerRestarts() == 0 && workersAfter.equals(workersBefore);
    }

    /** The report as the command prints it. */
    Map<String, Object> json() {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("frames", frames);
        json.put("seed", seed);
        json.put("duration_s", Math.round(durationSeconds * 10) / 10.0);
        json.put("untyped_internal_or_timed_out", untyped);
        json.put("health_checks", Map.of("passed", healthChecksPassed, "failed", healthChecksFailed));
        json.put("worker_restarts", workerRestarts());
        json.put("workers_before", new TreeSet<>(workersBefore));
        json.put("workers_after", new TreeSet<>(workersAfter));
        json.put("routes", routes);
        json.put("raw_frames", rawFrames);
        json.put("failures", failures);
        return json;
    }
}

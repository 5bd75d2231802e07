package io.squall.cli.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.squall.functions.api.CacheSources;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ReportTest {

    private static Report.Result ok(long sentMs, int prompt, int cached, String worker, int ceiling) {
        return new Report.Result(null, sentMs * 1_000_000, 0, new Outcome(50_000_000, new long[] {10_000_000}, 200_000_000,
                8, "", null, new Outcome.Served(prompt, cached, worker, cached / 16, 0)), ceiling);
    }

    private static Report.Result tiered(int prompt, int cached, CacheSources byTier) {
        return new Report.Result(null, 0, 0, new Outcome(50_000_000, new long[0], 200_000_000, 8, "", null,
                new Outcome.Served(prompt, cached, "a", cached / 16, 0, byTier)), -1);
    }

    private static Report.Result failed(long sentMs, String error) {
        return new Report.Result(null, sentMs * 1_000_000, 0, Outcome.failed(1_000_000, error), 0);
    }

    @Test
    void groupsErrorsByMessageWithTheNumbersBlankedMostFrequentFirst() {
        Map<String, Long> kinds = Report.errorKinds(List.of(
                Outcome.failed(1, "HTTP 400: the prompt needs 219 KV blocks; the worker has 192"),
                Outcome.failed(1, "HTTP 400: the prompt needs 230 KV blocks; the worker has 192"),
                Outcome.failed(1, "HTTP 503: overloaded"),
                Outcome.failed(1, "HTTP 400: the prompt needs 301 KV blocks; the worker has 192")));
        assertThat(kinds).containsExactly(
                Map.entry("HTTP N: the prompt needs N KV blocks; the worker has N", 3L),
                Map.entry("HTTP N: overloaded", 1L));
    }

    @Test
    void reportsTheHitRateItsCeilingAndTheRoutersEfficiencyInSimulatedTime() {
        Report.Run run = new Report.Run(List.of(
                ok(0, 100, 0, "a", 0),
                ok(10, 100, 64, "a", 96),
                ok(20, 100, 32, "b", 96),
                failed(30, "HTTP 503: overloaded")), 1_000_000_000L);
        Map<String, Object> report = Report.of(run, new Report.Options(10, 16, null));
        assertThat(report.get("cache_hit_rate")).isEqualTo(0.32);
        assertThat(report.get("cache_hit_ceiling")).isEqualTo(0.64);
        assertThat(report.get("router_efficiency")).isEqualTo(0.5);
        assertThat(report.get("errors")).isEqualTo(1L);
        assertThat(report.get("duration_s")).isEqualTo(10.0);
        @SuppressWarnings("unchecked")
        Map<String, Double> ttft = (Map<String, Double>) report.get("ttft_ms");
        assertThat(ttft.get("p50")).isEqualTo(500.0); // 50 ms of wall time at speedup 10
        @SuppressWarnings("unchecked")
        Map<String, Object> routing = (Map<String, Object>) report.get("routing");
        @SuppressWarnings("unchecked")
        Map<String, Map<String, Long>> byWorker = (Map<String, Map<String, Long>>) routing.get("by_worker");
        assertThat(byWorker.get("a")).containsEntry("requests", 2L).containsEntry("cached_tokens", 64L);
        assertThat((List<?>) routing.get("requests")).hasSize(4);
    }

    @Test
    void tpotIsOneFigurePerRequestWhereTheItlPoolsEveryGap() {
        // Request a: 9 gaps of 10 ms. Request b: 3 tokens, the second 400 ms behind another prompt's chunk.
        long[] even = new long[9];
        Arrays.fill(even, 10_000_000);
        Outcome a = new Outcome(20_000_000, even, 110_000_000, 10, "", null, Outcome.Served.UNKNOWN);
        Outcome b = new Outcome(20_000_000, new long[] {400_000_000, 10_000_000}, 430_000_000, 3, "", null,
                Outcome.Served.UNKNOWN);
        Outcome oneToken = new Outcome(20_000_000, new long[0], 20_000_000, 1, "", null, Outcome.Served.UNKNOWN);
        Report.Run run = new Report.Run(List.of(new Report.Result(null, 0, 0, a), new Report.Result(null, 1, 0, b),
                new Report.Result(null, 2, 0, oneToken), failed(3, "HTTP 503: overloaded")), 1_000_000_000L);
        Map<String, Object> report = Report.of(run, Report.Options.wallClock());
        @SuppressWarnings("unchecked")
        Map<String, Double> itl = (Map<String, Double>) report.get("itl_ms");
        @SuppressWarnings("unchecked")
        Map<String, Double> tpot = (Map<String, Double>) report.get("tpot_ms");
        assertThat(itl.get("p90")).isEqualTo(10.0); // the stall is 1 gap of 11
        assertThat(itl.get("p99")).isEqualTo(400.0);
        assertThat(tpot.get("p50")).isEqualTo(10.0); // (110 − 20) / 9
        assertThat(tpot.get("p99")).isEqualTo(205.0); // (430 − 20) / 2; the one-token request has none
        assertThat(tpot.get("mean")).isEqualTo(107.5);
    }

    @Test
    void sumsTheCachedTokensByTierOfTheSuccessfulRequests() {
        Report.Run run = new Report.Run(List.of(
                tiered(100, 64, new CacheSources(16, 48, 0, 0)),
                tiered(200, 96, new CacheSources(32, 32, 16, 16)),
                failed(30, "HTTP 503: overloaded")), 1_000_000_000L);

        Map<String, Object> report = Report.of(run, Report.Options.wallClock());

        assertThat(report.get("cache_hit_rate")).isEqualTo(0.533);
        assertThat(report.get("cached_tokens_by_tier")).isEqualTo(Map.of("g1", 48, "g2", 80, "g3", 16, "remote", 16));
    }

    @Test
    void leavesTheSplitByTierOutWhenARequestDidNotSayIt() {
        Report.Run run = new Report.Run(List.of(
                tiered(100, 64, new CacheSources(64, 0, 0, 0)),
                ok(10, 100, 32, "a", 0)), 1_000_000_000L);

        Map<String, Object> report = Report.of(run, Report.Options.wallClock());

        assertThat(report.get("cache_hit_rate")).isEqualTo(0.48);
        assertThat(report.get("cached_tokens_by_tier")).isNull();
    }

    @Test
    void readsSquallsSplitByTierFromTheOpenAiUsage() throws Exception {
        ObjectMapper json = new ObjectMapper();

        assertThat(HttpTarget.byTier(json.readTree("""
                {"prompt_tokens":120,"completion_tokens":8,
                 "prompt_tokens_details":{"cached_tokens":96,"cached_tokens_by_tier":{"g1":16,"g2":64,"g3":16,"remote":0}}}""")))
                .isEqualTo(new CacheSources(16, 64, 16, 0));
        assertThat(HttpTarget.byTier(json.readTree("""
                {"prompt_tokens":120,"completion_tokens":8,"prompt_tokens_details":{"cached_tokens":96}}"""))).isNull();
    }
}

package io.squall.cli;

import io.squall.cli.bench.Outcome;
import io.squall.cli.bench.Report;
import io.squall.scheduler.PlannerConfig;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class SimulationReportTest {

    private static final PlannerConfig.Slo SLO = new PlannerConfig.Slo(1_000, 50);
    /** Wall-clock times are a quarter of simulated ones. */
    private static final double SPEEDUP = 4;

    @Test
    void eachMinuteOfSendingCountsItsRequestsAndWhyTheyMissed() {
        Report.Run run = new Report.Run(List.of(
                sent(1, outcome(200, 10, 20)), // met: ttft 200 ms, 10 ms a token (simulated)
                sent(14, outcome(1_200, 10, 20)), // late first token, at 56 s
                sent(16, outcome(200, 80, 20)), // slow tokens, at 64 s
                sent(17, outcome(1_500, 90, 20)), // both, at 68 s
                sent(20, new Outcome(-1, new long[0], 1_000_000, 0, "", "HTTP 400", null)), // failed, at 80 s
                sent(40, outcome(900, 49, 2))), // met, at 160 s: minute 2, after an empty minute 1's end
                1_000_000_000L);

        List<Map<String, Integer>> minutes = SimulationReport.byMinute(run, SLO, SPEEDUP);

        assertThat(minutes).hasSize(3);
        assertThat(minutes.get(0)).containsEntry("from_s", 0).containsEntry("requests", 2).containsEntry("met", 1)
                .containsEntry("late_first_token", 1).containsEntry("slow_tokens", 0).containsEntry("failed", 0);
        assertThat(minutes.get(1)).containsEntry("from_s", 60).containsEntry("requests", 3).containsEntry("met", 0)
                .containsEntry("late_first_token", 1).containsEntry("slow_tokens", 2).containsEntry("failed", 1);
        assertThat(minutes.get(2)).containsEntry("requests", 1).containsEntry("met", 1);
        assertThat(SimulationReport.meets(run.results().get(5).outcome(), SLO, SPEEDUP)).isTrue();
    }

    private static Report.Result sent(double wallSeconds, Outcome outcome) {
        return new Report.Result(null, (long) (wallSeconds * 1e9), 0, outcome);
    }

    /** A request of {@code tokens} output tokens with these simulated first-token and per-token times. */
    private static Outcome outcome(double ttftMs, double tpotMs, int tokens) {
        long ttft = (long) (ttftMs / SPEEDUP * 1e6);
        long latency = ttft + (long) (tpotMs * (tokens - 1) / SPEEDUP * 1e6);
        return new Outcome(ttft, new long[0], latency, tokens, "", null, null);
    }
}

package io.squall.cli.bench;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class SoakSeriesTest {

    private static Map<String, Number> sample(long heap, long pages) {
        Map<String, Number> values = new LinkedHashMap<>();
        for (String name : SoakSeries.NAMES) {
            values.put(name, 0);
        }
        values.put("heap_after_gc_bytes", heap);
        values.put("kv_pages_in_use", pages);
        return values;
    }

    @Test
    void summarisesEachSeriesAfterTheWarmUp() {
        SoakSeries series = new SoakSeries();
        series.add(30, sample(900, 5));   // warm-up: not judged
        series.add(60, sample(100, 7));
        series.add(90, sample(110, 3));
        series.add(120, sample(120, 7));
        Map<String, Map<String, Object>> summary = series.summary(60);
        Map<String, Object> heap = summary.get("heap_after_gc_bytes");
        assertThat(heap).containsEntry("start", 100.0).containsEntry("end", 120.0).containsEntry("min", 100.0)
                .containsEntry("max", 120.0);
        // 10 bytes per 30 s is 1,200 bytes per hour
        assertThat((double) heap.get("slope_per_hour")).isCloseTo(1200, within(1e-6));
        assertThat((double) summary.get("kv_pages_in_use").get("slope_per_hour")).isCloseTo(0, within(1e-6));
        assertThat(series.rows()).hasSize(4);
    }

    @Test
    void tooFewSamplesAfterTheWarmUpGiveNoSummaryAndEverySampleNeedsEverySeries() {
        SoakSeries series = new SoakSeries();
        series.add(30, sample(1, 1));
        assertThat(series.summary(10)).isEmpty();
        Map<String, Number> partial = sample(1, 1);
        partial.remove("threads");
        assertThatThrownBy(() -> series.add(60, partial)).hasMessageContaining("threads");
    }

    @Test
    void readsTheWorkersUnlabelledGauges() {
        String metrics = """
                # HELP squall_worker_kv_blocks_free KV blocks not held by any sequence.
                # TYPE squall_worker_kv_blocks_free gauge
                squall_worker_kv_blocks_free 4000.0
                squall_worker_kv_blocks_total 4096.0
                squall_worker_running_sequences 3.0
                """;
        assertThat(WorkerGauges.gauge(metrics, "squall_worker_kv_blocks_total")
                - WorkerGauges.gauge(metrics, "squall_worker_kv_blocks_free")).isEqualTo(96);
        assertThatThrownBy(() -> WorkerGauges.gauge(metrics, "squall_worker_waiting_sequences"))
                .hasMessageContaining("squall_worker_waiting_sequences");
    }
}

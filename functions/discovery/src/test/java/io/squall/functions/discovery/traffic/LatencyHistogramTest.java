package io.squall.functions.discovery.traffic;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.withinPercentage;

class LatencyHistogramTest {

    @Test
    void percentilesAndTheMeanAreWithinABucketOfTheExactOnes() {
        long seed = System.nanoTime();
        SplittableRandom random = new SplittableRandom(seed);
        TrafficRecorder recorder = new TrafficRecorder("g");
        double[] values = new double[5000];
        for (int i = 0; i < values.length; i++) {
            values[i] = Math.exp(random.nextDouble(Math.log(1e-3), Math.log(2.0))); // 1 ms .. 2 s
            recorder.timeToFirstToken(values[i]);
        }
        LatencyHistogram histogram = recorder.snapshot(0).ttft();
        Arrays.sort(values);
        for (double p : new double[] {50, 90, 99}) {
            double exact = values[(int) Math.ceil(p / 100 * values.length) - 1];
            assertThat(histogram.percentile(p)).as("p%s, seed %d", p, seed).isCloseTo(exact, withinPercentage(22));
        }
        assertThat(histogram.mean()).isCloseTo(Arrays.stream(values).average().orElseThrow(), withinPercentage(11));
    }

    @Test
    void snapshotsDifferenceIntoAnIntervalAndMergeAcrossGateways() {
        TrafficRecorder recorder = new TrafficRecorder("g");
        recorder.interTokenLatency(0.010);
        TrafficReport before = recorder.snapshot(1);
        recorder.interTokenLatency(0.500);
        recorder.interTokenLatency(0.500);
        TrafficReport after = recorder.snapshot(2);
        LatencyHistogram interval = after.itl().since(before.itl());
        assertThat(interval.total()).isEqualTo(2);
        assertThat(interval.percentile(50)).isCloseTo(0.5, withinPercentage(22));
        assertThat(interval.plus(before.itl()).total()).isEqualTo(3);
        // a restarted gateway's counters went down: its whole report is the interval
        TrafficReport restarted = new TrafficRecorder("g").snapshot(3);
        assertThat(restarted.since(after)).isEqualTo(restarted);
        assertThat(LatencyHistogram.empty().percentile(50)).isNaN();
        assertThatThrownBy(() -> LatencyHistogram.of(new long[3])).hasMessageContaining("buckets");
    }
}

package io.squall.functions.discovery.hazelcast;

import io.squall.functions.discovery.traffic.TrafficRecorder;
import io.squall.functions.discovery.traffic.TrafficReport;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

class TrafficBoardTest {

    @Test
    void aReportSurvivesItsEncodingAndADamagedOneIsIgnored() {
        TrafficRecorder recorder = new TrafficRecorder("gateway-7");
        recorder.requestStarted();
        recorder.requestFinished(120, 30, 64);
        recorder.timeToFirstToken(0.05);
        recorder.interTokenLatency(0.004);
        recorder.requestFailed();
        TrafficReport report = recorder.snapshot(1234);
        byte[] bytes = TrafficBoard.encode(report);
        assertThat(TrafficBoard.decode(bytes)).isEqualTo(report);
        assertThat(TrafficBoard.decode(Arrays.copyOf(bytes, bytes.length / 2))).isNull();
        bytes[0] = 9;
        assertThat(TrafficBoard.decode(bytes)).isNull();
    }
}

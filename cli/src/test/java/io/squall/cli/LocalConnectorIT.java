package io.squall.cli;

import io.squall.scheduler.Pool;
import io.squall.scheduler.Replicas;
import io.squall.scheduler.ScalingConnector;
import io.squall.scheduler.connector.ManagedConnector;
import io.squall.scheduler.connector.ProcessWorkers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code local} connector for real: {@code squall worker} processes (mock engine) started with this JVM's own
 * command line, joining a cluster member of this test, ready once discovery lists them, and drained by SIGTERM.
 */
class LocalConnectorIT {

    @TempDir
    Path dir;

    @Test
    void workerProcessesJoinTheClusterAndLeaveItWhenThePoolShrinks() throws Exception {
        Cluster cluster = Cluster.join("127.0.0.1", 0, null);
        WorkerLauncher launcher = new WorkerLauncher(cluster.address(), "127.0.0.1", List.of("--engine", "mock",
                "--step-ms", "1=5", "--decode-ns-per-token", "0", "--prefill-ns-per-pair", "0", "--kv-blocks", "64"), null);
        ScalingConnector connector = new ManagedConnector("local", new ProcessWorkers(launcher::command, "127.0.0.1",
                dir.resolve("logs"), Duration.ofSeconds(30)), cluster.discovery());
        try {
            connector.scale(Pool.AGGREGATED, 2);
            assertThat(connector.replicas(Pool.AGGREGATED)).isEqualTo(new Replicas(2, 2, 0));
            await("both worker processes registered", () -> connector.replicas(Pool.AGGREGATED).ready() == 2
                    && cluster.discovery().instances().size() == 2);
            connector.scale(Pool.AGGREGATED, 1);
            assertThat(connector.replicas(Pool.AGGREGATED).current()).isEqualTo(1);
            await("the drained worker left discovery", () -> cluster.discovery().instances().size() == 1);
            assertThat(connector.replicas(Pool.AGGREGATED)).isEqualTo(new Replicas(1, 1, 1));
        } finally {
            connector.close();
            cluster.close();
        }
        try (var logs = Files.list(dir.resolve("logs"))) {
            assertThat(logs.toList()).as("each worker logged to a file of its own").hasSize(2);
        }
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as(what).isLessThan(deadline);
            Thread.sleep(100);
        }
    }
}

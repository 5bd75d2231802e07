package io.squall.cli;

import io.prometheus.client.CollectorRegistry;
import io.squall.functions.stage.StageEndpoints;
import io.squall.functions.stage.StageServer;
import io.squall.scheduler.Planner;
import io.squall.scheduler.PlannerConfig;
import io.squall.scheduler.PlannerLoop;
import io.squall.scheduler.Pool;
import io.squall.scheduler.ScalingConnector;
import io.squall.scheduler.connector.DryRunConnector;
import io.squall.scheduler.connector.ManagedConnector;
import io.squall.scheduler.connector.ProcessWorkers;
import io.squall.scheduler.metrics.PlannerMetrics;
import io.squall.scheduler.observe.ClusterObserver;
import io.squall.scheduler.sizing.PerformanceModel;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * A running planner in this process: the decision loop over this process's cluster membership, its connector and
 * its {@code /metrics} endpoint. For {@code squall planner} and {@code squall serve --planner}. Closing stops the
 * loop, then the connector (draining the workers it started), then the endpoint.
 */
final class PlannerRun implements AutoCloseable {

    /** How long a worker being drained may take before it is killed. */
    static final Duration DRAIN_GRACE = Duration.ofSeconds(60);

    private final PlannerLoop loop;
    private final ScalingConnector connector;
    private final StageServer endpoint;

    private PlannerRun(PlannerLoop loop, ScalingConnector connector, StageServer endpoint) {
        this.loop = loop;
        this.connector = connector;
        this.endpoint = endpoint;
    }

    /**
     * The {@code local} connector (worker processes started by {@code launcher}, logging under {@code workerLogs})
     * or the {@code dry-run} one.
     */
    static ScalingConnector connector(String name, Cluster cluster, WorkerLauncher launcher, String host,
                                      Path workerLogs) {
        return switch (name) {
            case "local" -> new ManagedConnector("local", new ProcessWorkers(launcher::command, host, workerLogs,
                    DRAIN_GRACE), cluster.discovery());
            case "dry-run" -> new DryRunConnector(cluster.discovery());
            default -> throw new IllegalArgumentException("--connector must be local, dry-run or knative, got " + name);
        };
    }

    /**
     * Starts the planner; it owns {@code connector} from now on.
     *
     * @param initial   replicas each pool starts with (the local connector starts them at once)
     * @param timeScale simulated seconds per second of mock workers at a speedup; 1 otherwise
     */
    static PlannerRun start(Cluster cluster, PlannerConfig config, PerformanceModel model, ScalingConnector connector,
                            Map<Pool, Integer> initial, double timeScale, String host, int httpPort) {
        try {
            initial.forEach((pool, replicas) -> {
                PlannerConfig.Bounds bounds = config.pools().get(pool);
                connector.scale(pool, Math.max(bounds.min(), Math.min(bounds.max(), replicas)));
            });
            CollectorRegistry registry = new CollectorRegistry(true);
            // the stages' one port: /healthz, /readyz (the Knative probes) and /metrics; the planner serves no RSocket
            StageServer endpoint = StageServer.start(new StageEndpoints(() -> true,
                    () -> StageEndpoints.prometheus(registry), null), StageServer.listen(host, httpPort));
            try {
                ClusterObserver observer = new ClusterObserver(cluster.discovery(), cluster.trafficBoard(), timeScale,
                        System::nanoTime);
                PlannerLoop loop = new PlannerLoop(new Planner(config, model), observer, connector, config,
                        new PlannerMetrics(registry)).start(timeScale);
                return new PlannerRun(loop, connector, endpoint);
            } catch (RuntimeException e) {
                endpoint.close();
                throw e;
            }
        } catch (RuntimeException e) {
            connector.close();
            throw e;
        }
    }

    int metricsPort() {
        return endpoint.port();
    }

    String connectorName() {
        return connector.name();
    }

    @Override
    public void close() {
        loop.close();
        connector.close();
        endpoint.close();
    }
}

package io.squall.knative.manifest;

import io.squall.knative.graph.Graph;
import io.squall.knative.graph.Stages.Engine;
import io.squall.knative.graph.Stages.GatewayStage;
import io.squall.knative.graph.Stages.PlannerStage;
import io.squall.knative.graph.Stages.WorkerStage;
import io.squall.scheduler.Pool;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code squall} command line of each stage in a pod: {@code gateway}, {@code worker --role …} or
 * {@code planner}, joined to the graph's Hazelcast cluster through its headless Service
 * ({@code --join k8s:GRAPH-hz.NAMESPACE}), bound to every interface, serving on {@value StageContainers#HTTP_PORT}.
 * The cli module's tests parse these lines with the real commands, so an option renamed there fails here.
 */
final class StageCommands {

    /** The Hazelcast member port of every stage, behind the headless Service. */
    static final int GRID_PORT = 5701;
    /** The gateway's RSocket over TCP (reached only from inside the graph). */
    static final int GATEWAY_RSOCKET_PORT = 7000;
    /** A worker's RSocket over TCP: the gateway's and other workers' streams to it. */
    static final int WORKER_RSOCKET_PORT = 7001;

    private static final String ANY_INTERFACE = "0.0.0.0";

    private StageCommands() {
    }

    /** {@code squall gateway …}. */
    static List<String> gateway(Graph graph) {
        GatewayStage gateway = graph.stages().gateway();
        Graph.Router router = graph.policy().router();
        List<String> args = new ArrayList<>(List.of("gateway", "--model", graph.model().source()));
        cluster(graph, args);
        add(args, "--http-port", StageContainers.HTTP_PORT);
        add(args, "--rsocket-port", GATEWAY_RSOCKET_PORT);
        add(args, "--router", router.policy());
        add(args, "--kv-overlap-weight", router.overlapWeight());
        add(args, "--router-temperature", router.temperature());
        if (graph.model().servedName() != null) {
            add(args, "--served-model-name", graph.model().servedName());
        }
        if (gateway.apiKeysSecret() != null) {
            add(args, "--api-keys", StageContainers.API_KEYS_DIR + "/keys");
        }
        return args;
    }

    /** {@code squall worker --role …} for the workers of {@code pool}. */
    static List<String> worker(Graph graph, Pool pool, WorkerStage worker) {
        List<String> args = new ArrayList<>(List.of("worker", "--role", pool.name().toLowerCase(Locale.ROOT),
                "--model", graph.model().source()));
        cluster(graph, args);
        add(args, "--http-port", StageContainers.HTTP_PORT);
        add(args, "--rsocket-port", WORKER_RSOCKET_PORT);
        Engine engine = worker.engine();
        add(args, "--max-sequences", engine.maxSequences());
        add(args, "--context", engine.context());
        if (graph.model().servedName() != null) { // the id workers advertise is the one the gateway routes by
            add(args, "--served-model-name", graph.model().servedName());
        }
        if (engine.kernels() != null) {
            add(args, "--kernels", engine.kernels());
        }
        add(args, "--kv-blocks", worker.kv().blocks());
        if (worker.kv().hostBytes() > 0) {
            add(args, "--kv-host-bytes", worker.kv().hostBytes());
        }
        if (worker.kv().diskBytes() > 0) {
            add(args, "--kv-disk-dir", StageContainers.KV_DISK_DIR);
            add(args, "--kv-disk-bytes", worker.kv().diskBytes());
        }
        if (worker.disaggregation() != null) {
            add(args, "--disagg-min-tokens", worker.disaggregation().minTokens());
            add(args, "--prefill-max-queue", worker.disaggregation().prefillMaxQueue());
        }
        return args;
    }

    /** JVM system properties of a worker: the kernel threads when the graph sets them. */
    static Map<String, String> workerProperties(WorkerStage worker) {
        Map<String, String> properties = new LinkedHashMap<>();
        if (worker.engine().kernelThreads() > 0) {
            properties.put("squall.kernels.threads", Integer.toString(worker.engine().kernelThreads()));
        }
        return properties;
    }

    /**
     * {@code squall planner …} with the Knative connector, reading the graph (and its profile) from the
     * ConfigMap mounted at {@value StageContainers#GRAPH_DIR}.
     */
    static List<String> planner(Graph graph) {
        PlannerStage planner = graph.stages().planner();
        List<String> args = new ArrayList<>(List.of("planner"));
        cluster(graph, args);
        add(args, "--http-port", StageContainers.HTTP_PORT);
        add(args, "--connector", "knative");
        add(args, "--graph", StageContainers.GRAPH_DIR + "/" + Manifests.GRAPH_KEY);
        add(args, "--mode", planner.mode());
        add(args, "--interval", planner.intervalSeconds());
        if (planner.profile() != null) {
            add(args, "--profile", StageContainers.GRAPH_DIR + "/" + Manifests.PROFILE_KEY);
        }
        if (graph.policy().slo() != null) {
            add(args, "--ttft-ms", graph.policy().slo().ttftMs());
            add(args, "--itl-ms", graph.policy().slo().itlMs());
        }
        graph.stages().workers().forEach((pool, worker) -> {
            String name = pool.name().toLowerCase(Locale.ROOT);
            add(args, "--min", name + "=" + worker.replicas().min());
            add(args, "--max", name + "=" + worker.replicas().max());
        });
        return args;
    }

    /** The cluster options every stage shares. */
    private static void cluster(Graph graph, List<String> args) {
        add(args, "--join", "k8s:" + Names.hazelcastService(graph) + "." + graph.namespace() + ":" + GRID_PORT);
        add(args, "--host", ANY_INTERFACE);
        add(args, "--grid-port", GRID_PORT);
    }

    private static void add(List<String> args, String option, Object value) {
        args.add(option);
        args.add(String.valueOf(value));
    }
}

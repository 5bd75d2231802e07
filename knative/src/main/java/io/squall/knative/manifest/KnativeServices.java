package io.squall.knative.manifest;

import io.fabric8.knative.serving.v1.Service;
import io.fabric8.knative.serving.v1.ServiceBuilder;
import io.squall.knative.graph.Graph;
import io.squall.knative.graph.Stages.GatewayStage;
import io.squall.knative.graph.Stages.ReplicaBounds;
import io.squall.knative.graph.Stages.StageRuntime;
import io.squall.knative.graph.Stages.WorkerStage;
import io.squall.scheduler.Pool;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One Knative {@code serving.knative.dev/v1} Service per stage.
 *
 * <p>Scale: the gateway's load is HTTP requests through Knative's route, so Knative's concurrency autoscaler
 * (KPA) sizes it within the graph's bounds. Workers are reached by the gateway and by each other directly on
 * their pods (RSocket streams Knative cannot see), so their revision template pins {@code min-scale} =
 * {@code max-scale} = the initial replicas and the planner moves both on the running revision (see
 * {@code KnativeScalingConnector}); the KPA never decides for them. The planner runs exactly one replica.
 *
 * <p>Placement: autoscaling annotations sit on the revision template only (Knative rejects them on the
 * Service's metadata); workers and the planner are {@code cluster-local}; Prometheus scrape annotations sit on
 * the template so they reach the pods.
 */
final class KnativeServices {

    private KnativeServices() {
    }

    static Service gateway(Graph graph) {
        GatewayStage gateway = graph.stages().gateway();
        Map<String, String> annotations = scale(gateway.replicas(), gateway.runtime());
        annotations.put(KnativeKeys.METRIC, "concurrency");
        annotations.put(KnativeKeys.TARGET, Integer.toString(gateway.concurrencyTarget()));
        StageContainers.Mounts mounts = new StageContainers.Mounts(graph.model().downloaded(), graph.model().cacheBytes(),
                0, false, gateway.apiKeysSecret());
        return service(graph, Stage.GATEWAY, annotations, StageContainers.pod(graph, gateway.runtime(),
                StageCommands.gateway(graph), Map.of(), mounts), false, gateway.runtime());
    }

    static Service worker(Graph graph, Pool pool) {
        WorkerStage worker = graph.stages().workers().get(pool);
        Map<String, String> annotations = scale(ReplicaBounds.fixed(worker.replicas().initial()), worker.runtime());
        StageContainers.Mounts mounts = new StageContainers.Mounts(graph.model().downloaded(), graph.model().cacheBytes(),
                worker.kv().diskBytes(), false, null);
        return service(graph, Stage.of(pool), annotations, StageContainers.pod(graph, worker.runtime(),
                StageCommands.worker(graph, pool, worker), StageCommands.workerProperties(worker), mounts), true, worker.runtime());
    }

    static Service planner(Graph graph) {
        StageRuntime runtime = graph.stages().planner().runtime();
        Map<String, String> annotations = scale(ReplicaBounds.fixed(1), runtime);
        StageContainers.Mounts mounts = new StageContainers.Mounts(false, 0, 0, true, null);
        return service(graph, Stage.PLANNER, annotations, StageContainers.pod(graph, runtime, StageCommands.planner(graph),
                Map.of(), mounts), true, runtime);
    }

    /** The KPA's bounds, the start-up deadline and the scrape annotations of a revision template. */
    private static Map<String, String> scale(ReplicaBounds replicas, StageRuntime runtime) {
        Map<String, String> annotations = new TreeMap<>();
        annotations.put(KnativeKeys.CLASS, KnativeKeys.KPA);
        annotations.put(KnativeKeys.MIN_SCALE, Integer.toString(replicas.min()));
        annotations.put(KnativeKeys.MAX_SCALE, Integer.toString(replicas.max()));
        annotations.put(KnativeKeys.INITIAL_SCALE, Integer.toString(replicas.initial()));
        annotations.put(KnativeKeys.PROGRESS_DEADLINE, runtime.startupSeconds() + "s");
        annotations.put("prometheus.io/scrape", "true");
        annotations.put("prometheus.io/port", Integer.toString(StageContainers.HTTP_PORT));
        annotations.put("prometheus.io/path", "/metrics");
        return annotations;
    }

    private static Service service(Graph graph, Stage stage, Map<String, String> templateAnnotations,
                                   StageContainers.Pod pod, boolean clusterLocal, StageRuntime runtime) {
        Map<String, String> labels = Names.stageLabels(graph, stage);
        if (clusterLocal) {
            labels.put(KnativeKeys.VISIBILITY, KnativeKeys.CLUSTER_LOCAL);
        }
        return new ServiceBuilder()
                .withNewMetadata()
                    .withName(Names.service(graph, stage))
                    .withNamespace(graph.namespace())
                    .withLabels(labels)
                .endMetadata()
                .withNewSpec()
                    .withNewTemplate()
                        .withNewMetadata()
                            .withLabels(Names.stageLabels(graph, stage))
                            .withAnnotations(templateAnnotations)
                        .endMetadata()
                        .withNewSpec()
                            .withServiceAccountName(stage == Stage.PLANNER ? Names.planner(graph) : null)
                            // only the planner talks to the Kubernetes API
                            .withAutomountServiceAccountToken(stage == Stage.PLANNER ? null : Boolean.FALSE)
                            .withTimeoutSeconds((long) runtime.timeoutSeconds())
                            .withContainers(List.of(pod.container()))
                            .withVolumes(pod.volumes().isEmpty() ? null : pod.volumes())
                        .endSpec()
                    .endTemplate()
                .endSpec()
                .build();
    }
}

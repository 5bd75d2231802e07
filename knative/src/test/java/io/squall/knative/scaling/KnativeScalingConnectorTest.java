package io.squall.knative.scaling;

import io.fabric8.knative.internal.autoscaling.v1alpha1.PodAutoscaler;
import io.fabric8.knative.internal.autoscaling.v1alpha1.PodAutoscalerBuilder;
import io.fabric8.knative.serving.v1.Revision;
import io.fabric8.knative.serving.v1.RevisionBuilder;
import io.fabric8.knative.serving.v1.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.squall.knative.MockServerLogs;
import io.squall.knative.deploy.ClusterDeployer;
import io.squall.knative.graph.Graph;
import io.squall.knative.graph.GraphYaml;
import io.squall.knative.manifest.KnativeKeys;
import io.squall.knative.manifest.Manifests;
import io.squall.scheduler.Pool;
import io.squall.scheduler.Replicas;
import io.squall.scheduler.ScalingException;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static io.squall.knative.TestGraphs.BASE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Against fabric8's Kubernetes mock server in CRUD mode. The mock stores objects but runs no controller, so the
 * test plays Knative's part where the connector depends on it: after the graph is applied it creates each worker
 * Service's first Revision (and that Revision's PodAutoscaler) with the template's annotations, as Knative's
 * configuration and revision reconcilers do, and reports replica counts in the Revision's status.
 */
@EnableKubernetesMockClient(crud = true)
class KnativeScalingConnectorTest {

    static {
        MockServerLogs.quiet();
    }

    private static final String NAMESPACE = "serving";

    KubernetesClient client;

    @Test
    void aDecisionPinsTheRunningRevisionAndLeavesTheServiceAndItsTemplateAlone() {
        Graph graph = deploy(BASE);
        Service before = service("demo-decode");
        KnativeScalingConnector connector = new KnativeScalingConnector(graph, client, false);

        connector.scale(Pool.DECODE, 5);

        Revision revision = revision("demo-decode-00001");
        assertThat(revision.getMetadata().getAnnotations())
                .containsEntry(KnativeKeys.MIN_SCALE, "5").containsEntry(KnativeKeys.MAX_SCALE, "5")
                .containsEntry(KnativeKeys.CLASS, KnativeKeys.KPA);
        Service after = service("demo-decode");
        assertThat(after.getMetadata().getResourceVersion()).isEqualTo(before.getMetadata().getResourceVersion());
        assertThat(after.getMetadata().getGeneration()).isEqualTo(before.getMetadata().getGeneration());
        assertThat(after.getSpec()).isEqualTo(before.getSpec());
        assertThat(after.getSpec().getTemplate().getMetadata().getAnnotations())
                .containsEntry(KnativeKeys.MIN_SCALE, "2").containsEntry(KnativeKeys.MAX_SCALE, "2");
        assertThat(client.resources(Revision.class).inNamespace(NAMESPACE).list().getItems())
                .extracting(r -> r.getMetadata().getName())
                .containsExactlyInAnyOrder("demo-prefill-00001", "demo-decode-00001");
        assertThat(podAutoscaler("demo-decode-00001").getMetadata().getAnnotations())
                .as("with the revision mechanism Knative copies the Revision's bounds to its PodAutoscaler itself")
                .containsEntry(KnativeKeys.MIN_SCALE, "2");
        assertThat(revision("demo-prefill-00001").getMetadata().getAnnotations()).containsEntry(KnativeKeys.MIN_SCALE, "1");
    }

    @Test
    void replicasReportTheTargetAndWhatKnativeSeesOnTheRevision() {
        Graph graph = deploy(BASE);
        KnativeScalingConnector connector = new KnativeScalingConnector(graph, client, false);
        assertThat(connector.replicas(Pool.DECODE)).isEqualTo(new Replicas(2, 2, 2));

        connector.scale(Pool.DECODE, 4);
        report("demo-decode-00001", 4, 3);

        assertThat(connector.replicas(Pool.DECODE)).isEqualTo(new Replicas(4, 4, 3));

        connector.scale(Pool.DECODE, 3);
        report("demo-decode-00001", 3, 4);
        assertThat(connector.replicas(Pool.DECODE)).as("draining: more pods ready than asked for")
                .isEqualTo(new Replicas(3, 4, 4));
        assertThat(connector.name()).isEqualTo("knative");
    }

    @Test
    void beforeKnative121TheBoundsGoOnThePodAutoscalerAndTheRevisionStaysUntouched() {
        Graph graph = deploy(BASE + "knative: {scaling: pod-autoscaler}\n");
        Revision before = revision("demo-decode-00001");
        KnativeScalingConnector connector = new KnativeScalingConnector(graph, client, false);

        connector.scale(Pool.DECODE, 6);

        assertThat(podAutoscaler("demo-decode-00001").getMetadata().getAnnotations())
                .containsEntry(KnativeKeys.MIN_SCALE, "6").containsEntry(KnativeKeys.MAX_SCALE, "6");
        Revision after = revision("demo-decode-00001");
        assertThat(after.getMetadata().getAnnotations()).isEqualTo(before.getMetadata().getAnnotations());
        assertThat(after.getMetadata().getResourceVersion()).isEqualTo(before.getMetadata().getResourceVersion());
        assertThat(connector.replicas(Pool.DECODE).target()).isEqualTo(6);
    }

    @Test
    void reApplyingTheGraphKeepsTheDecision() {
        Graph graph = deploy(BASE);
        new KnativeScalingConnector(graph, client, false).scale(Pool.DECODE, 7);

        new ClusterDeployer(client).apply(Manifests.of(graph, null));

        assertThat(revision("demo-decode-00001").getMetadata().getAnnotations()).containsEntry(KnativeKeys.MIN_SCALE, "7");
        assertThat(client.resources(Revision.class).inNamespace(NAMESPACE).list().getItems()).hasSize(2);
    }

    @Test
    void beforeKnativeReportsARevisionTheNewestLabelledOneIsPinned() {
        Graph graph = GraphYaml.parse(BASE);
        new ClusterDeployer(client).apply(Manifests.of(graph, null));
        for (int generation = 1; generation <= 2; generation++) {
            client.resource(new RevisionBuilder()
                    .withNewMetadata().withName("demo-decode-0000" + generation).withNamespace(NAMESPACE)
                        .addToAnnotations(KnativeKeys.MIN_SCALE, "2").addToAnnotations(KnativeKeys.MAX_SCALE, "2")
                        .addToLabels(KnativeScalingConnector.SERVICE_LABEL, "demo-decode")
                        .addToLabels(KnativeScalingConnector.GENERATION_LABEL, Integer.toString(generation)).endMetadata()
                    .build()).create();
        }

        new KnativeScalingConnector(graph, client, false).scale(Pool.DECODE, 3);

        assertThat(revision("demo-decode-00002").getMetadata().getAnnotations()).containsEntry(KnativeKeys.MIN_SCALE, "3");
        assertThat(revision("demo-decode-00001").getMetadata().getAnnotations()).containsEntry(KnativeKeys.MIN_SCALE, "2");
    }

    @Test
    void decisionsOutsideTheGraphAreRefusedAndAMissingServiceIsAScalingError() {
        Graph graph = GraphYaml.parse(BASE);
        KnativeScalingConnector connector = new KnativeScalingConnector(graph, client, false);

        assertThatThrownBy(() -> connector.scale(Pool.AGGREGATED, 2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no AGGREGATED pool");
        assertThatThrownBy(() -> connector.scale(Pool.DECODE, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("takes 2..8 replicas");
        assertThatThrownBy(() -> connector.scale(Pool.DECODE, 9)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> connector.scale(Pool.DECODE, 3)).isInstanceOf(ScalingException.class)
                .hasMessageContaining("Knative Service serving/demo-decode not found");
        assertThatThrownBy(() -> connector.replicas(Pool.PREFILL)).isInstanceOf(ScalingException.class);
    }

    /** Applies the graph and plays Knative: a first ready Revision and PodAutoscaler per worker Service. */
    private Graph deploy(String yaml) {
        Graph graph = GraphYaml.parse(yaml);
        new ClusterDeployer(client).apply(Manifests.of(graph, null));
        for (String name : new String[] {"demo-prefill", "demo-decode"}) {
            Service service = service(name);
            String revision = name + "-00001";
            Map<String, String> annotations = new HashMap<>(service.getSpec().getTemplate().getMetadata().getAnnotations());
            client.resource(new RevisionBuilder()
                    .withNewMetadata().withName(revision).withNamespace(NAMESPACE).withAnnotations(annotations)
                        .addToLabels("serving.knative.dev/service", name).endMetadata()
                    .withSpec(service.getSpec().getTemplate().getSpec())
                    .withNewStatus().withActualReplicas(Integer.valueOf(annotations.get(KnativeKeys.MIN_SCALE)))
                        .withDesiredReplicas(Integer.valueOf(annotations.get(KnativeKeys.MIN_SCALE))).endStatus()
                    .build()).create();
            client.resource(new PodAutoscalerBuilder()
                    .withNewMetadata().withName(revision).withNamespace(NAMESPACE).withAnnotations(annotations).endMetadata()
                    .build()).create();
            service.setStatus(new io.fabric8.knative.serving.v1.ServiceStatusBuilder()
                    .withLatestCreatedRevisionName(revision).withLatestReadyRevisionName(revision).build());
            client.resource(service).update();
        }
        return graph;
    }

    private void report(String revision, int desired, int ready) {
        Revision current = revision(revision);
        current.getStatus().setDesiredReplicas(desired);
        current.getStatus().setActualReplicas(ready);
        client.resource(current).update();
    }

    private Service service(String name) {
        return client.resources(Service.class).inNamespace(NAMESPACE).withName(name).get();
    }

    private Revision revision(String name) {
        return client.resources(Revision.class).inNamespace(NAMESPACE).withName(name).get();
    }

    private PodAutoscaler podAutoscaler(String name) {
        return client.resources(PodAutoscaler.class).inNamespace(NAMESPACE).withName(name).get();
    }
}

package io.squall.knative.deploy;

import io.fabric8.knative.serving.v1.Service;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.squall.knative.MockServerLogs;
import io.squall.knative.graph.GraphYaml;
import io.squall.knative.manifest.Manifests;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.squall.knative.TestGraphs.BASE;
import static io.squall.knative.TestGraphs.EXAMPLES;
import static org.assertj.core.api.Assertions.assertThat;

/** Against fabric8's Kubernetes mock server in CRUD mode: an API server that stores what it is sent. */
@EnableKubernetesMockClient(crud = true)
class ClusterDeployerTest {

    static {
        MockServerLogs.quiet();
    }

    KubernetesMockServer server;
    KubernetesClient client;

    @Test
    void applyCreatesExactlyTheWrittenObjects() {
        Manifests manifests = Manifests.load(EXAMPLES.resolve("knative-disaggregated").resolve("graph.yaml"));

        List<String> lines = new ClusterDeployer(client).apply(manifests);

        assertThat(lines).hasSize(manifests.objects().size()).allMatch(l -> l.startsWith("applied "));
        for (HasMetadata written : manifests.objects()) {
            HasMetadata stored = client.resource(written).get();
            assertThat(stored).as(written.getKind() + "/" + written.getMetadata().getName()).isNotNull();
            assertThat(withoutServerFields(stored)).isEqualTo(Manifests.yaml(written));
        }
        assertThat(client.resources(Service.class).inNamespace("squall").list().getItems()).extracting(s -> s.getMetadata().getName())
                .containsExactlyInAnyOrder("squall-disagg-gateway", "squall-disagg-prefill", "squall-disagg-decode", "squall-disagg-planner");
        assertThat(client.network().v1().networkPolicies().inNamespace("squall").list().getItems())
                .extracting(NetworkPolicy::getMetadata).extracting(m -> m.getName())
                .containsExactlyInAnyOrder("squall-disagg-internal", "squall-disagg-gateway", "squall-disagg-knative", "squall-disagg-metrics");
        assertThat(client.services().inNamespace("squall").withName("squall-disagg-hz").get().getSpec().getClusterIP())
                .isEqualTo("None");
    }

    @Test
    void theDiffIsEmptyOnceAppliedAndShowsWhatChanged() {
        Manifests manifests = Manifests.of(GraphYaml.parse(BASE), null);
        ClusterDeployer deployer = new ClusterDeployer(client);

        String before = deployer.diff(manifests);
        assertThat(before).contains("--- live/Service.serving.knative.dev/demo-decode\n+++ graph/Service.serving.knative.dev/demo-decode\n")
                .contains("+kind: Service");

        deployer.apply(manifests);
        assertThat(deployer.diff(manifests)).isEmpty();

        Manifests bigger = Manifests.of(GraphYaml.parse(BASE.replace("replicas: {min: 1, max: 2}", "replicas: {min: 1, max: 3}")), null);
        String diff = deployer.diff(bigger);
        assertThat(diff).startsWith("--- live/ConfigMap/demo-graph\n");
        assertThat(diff).contains("--- live/Service.serving.knative.dev/demo-gateway\n")
                .contains("-        autoscaling.knative.dev/max-scale: \"2\"\n+        autoscaling.knative.dev/max-scale: \"3\"\n")
                .contains("-          max: 2\n+          max: 3\n")
                .doesNotContain("demo-decode");
    }

    @Test
    void deleteRemovesEveryObjectAndToleratesAbsentOnes() {
        Manifests manifests = Manifests.of(GraphYaml.parse(BASE), null);
        ClusterDeployer deployer = new ClusterDeployer(client);
        deployer.apply(manifests);

        List<String> lines = deployer.delete(manifests);

        assertThat(lines).allMatch(l -> l.startsWith("deleted "));
        assertThat(lines.getFirst()).isEqualTo("deleted Service.serving.knative.dev/demo-planner");
        for (HasMetadata written : manifests.objects()) {
            assertThat(client.resource(written).get()).isNull();
        }
        assertThat(deployer.delete(manifests)).allMatch(l -> l.startsWith("absent "));
    }

    /** The object as the graph wrote it: without what the API server adds (uid, resourceVersion, timestamps). */
    private static String withoutServerFields(HasMetadata stored) {
        stored.getMetadata().setUid(null);
        stored.getMetadata().setResourceVersion(null);
        stored.getMetadata().setCreationTimestamp(null);
        stored.getMetadata().setGeneration(null);
        stored.getMetadata().setManagedFields(null);
        return Manifests.yaml(stored);
    }
}

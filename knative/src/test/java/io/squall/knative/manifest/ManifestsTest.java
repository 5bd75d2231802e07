package io.squall.knative.manifest;

import io.fabric8.knative.serving.v1.Service;
import io.fabric8.knative.serving.v1.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.squall.knative.graph.Graph;
import io.squall.knative.graph.GraphYaml;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import static io.squall.knative.TestGraphs.BASE;
import static io.squall.knative.TestGraphs.EXAMPLES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ManifestsTest {

    static Manifests example(String name) {
        return Manifests.load(EXAMPLES.resolve(name).resolve("graph.yaml"));
    }

    static Manifests base() {
        return Manifests.of(GraphYaml.parse(BASE), null);
    }

    @Test
    void aGraphGivesTheSameBytesEveryTime(@TempDir Path dir) throws Exception {
        Manifests first = example("knative-disaggregated");
        Manifests second = example("knative-disaggregated");
        assertThat(second.files()).isEqualTo(first.files());

        first.writeTo(dir.resolve("a"));
        second.writeTo(dir.resolve("b"));
        for (String file : first.files().keySet()) {
            assertThat(Files.readAllBytes(dir.resolve("b").resolve(file))).isEqualTo(Files.readAllBytes(dir.resolve("a").resolve(file)));
        }
    }

    @Test
    void writingAgainDropsFilesOfObjectsTheGraphNoLongerHasButKeepsOthers(@TempDir Path dir) throws Exception {
        example("knative-disaggregated").writeTo(dir);
        Files.writeString(dir.resolve("README.md"), "notes");
        Manifests aggregated = example("knative-aggregated");

        aggregated.writeTo(dir);

        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()).sorted().toList())
                    .containsExactlyElementsOf(concat(aggregated.files().keySet().stream().toList(), "README.md"));
        }
    }

    @Test
    void theDisaggregatedGraphDeploysItsStagesAndTheirSurroundings() {
        Manifests manifests = example("knative-disaggregated");

        assertThat(manifests.byKindAndName().keySet()).containsExactly(
                "ServiceAccount/squall-disagg-planner", "Role/squall-disagg-planner", "RoleBinding/squall-disagg-planner",
                "ConfigMap/squall-disagg-graph", "Service/squall-disagg-hz",
                "NetworkPolicy/squall-disagg-internal", "NetworkPolicy/squall-disagg-gateway",
                "NetworkPolicy/squall-disagg-knative", "NetworkPolicy/squall-disagg-metrics",
                "Service/squall-disagg-gateway", "Service/squall-disagg-prefill", "Service/squall-disagg-decode",
                "Service/squall-disagg-planner");
        assertThat(manifests.files().keySet()).first().isEqualTo("01-serviceaccount-squall-disagg-planner.yaml");
        assertThat(manifests.files()).containsKey("12-kservice-squall-disagg-decode.yaml");
        ConfigMap graph = (ConfigMap) manifests.byKindAndName().get("ConfigMap/squall-disagg-graph");
        assertThat(GraphYaml.parse(graph.getData().get(Manifests.GRAPH_KEY))).isEqualTo(manifests.graph());
    }

    @Test
    void workersArePinnedForThePlannerWhileKnativeSizesTheGateway() {
        Manifests manifests = example("knative-disaggregated");

        Map<String, String> decode = template(manifests, "squall-disagg-decode");
        assertThat(decode).containsEntry(KnativeKeys.CLASS, KnativeKeys.KPA)
                .containsEntry(KnativeKeys.MIN_SCALE, "2").containsEntry(KnativeKeys.MAX_SCALE, "2")
                .containsEntry(KnativeKeys.INITIAL_SCALE, "2")
                .containsEntry("prometheus.io/scrape", "true").containsEntry("prometheus.io/port", "8080")
                .doesNotContainKey(KnativeKeys.TARGET);
        Map<String, String> gateway = template(manifests, "squall-disagg-gateway");
        assertThat(gateway).containsEntry(KnativeKeys.MIN_SCALE, "1").containsEntry(KnativeKeys.MAX_SCALE, "4")
                .containsEntry(KnativeKeys.METRIC, "concurrency").containsEntry(KnativeKeys.TARGET, "200");
        assertThat(template(manifests, "squall-disagg-planner"))
                .containsEntry(KnativeKeys.MIN_SCALE, "1").containsEntry(KnativeKeys.MAX_SCALE, "1");
        assertThat(service(manifests, "squall-disagg-decode").getMetadata().getLabels())
                .containsEntry(KnativeKeys.VISIBILITY, KnativeKeys.CLUSTER_LOCAL);
        assertThat(service(manifests, "squall-disagg-gateway").getMetadata().getLabels()).doesNotContainKey(KnativeKeys.VISIBILITY);
    }

    @Test
    void everyStageIsOneContainerOnOneHttpPortJoinedToTheGraphsCluster() {
        Manifests manifests = example("knative-disaggregated");

        for (String name : List.of("squall-disagg-gateway", "squall-disagg-prefill", "squall-disagg-decode", "squall-disagg-planner")) {
            Container container = container(manifests, name);
            assertThat(container.getPorts()).singleElement().satisfies(p -> {
                assertThat(p.getContainerPort()).isEqualTo(8080);
                assertThat(p.getName()).isEqualTo("http1");
            });
            assertThat(container.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
            assertThat(container.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
            assertThat(container.getReadinessProbe().getHttpGet().getPort()).isNull();
            assertThat(String.join(" ", container.getArgs()))
                    .contains("--join k8s:squall-disagg-hz.squall:5701 --host 0.0.0.0 --grid-port 5701 --http-port 8080");
        }
        assertThat(container(manifests, "squall-disagg-decode").getArgs()).startsWith("worker", "--role", "decode", "--model",
                "hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF/qwen2.5-0.5b-instruct-q8_0.gguf");
        assertThat(String.join(" ", container(manifests, "squall-disagg-decode").getArgs()))
                .contains("--kv-host-bytes 2147483648 --kv-disk-dir /var/lib/squall/kv --kv-disk-bytes 8589934592")
                .contains("--disagg-min-tokens 512 --prefill-max-queue 4");
        for (String name : List.of("squall-disagg-gateway", "squall-disagg-prefill", "squall-disagg-decode")) {
            assertThat(String.join(" ", container(manifests, name).getArgs())).as("%s: the model id the gateway routes "
                    + "by is the one its workers advertise", name).contains("--served-model-name qwen2.5-0.5b-instruct");
        }
        assertThat(container(manifests, "squall-disagg-decode").getEnv())
                .anySatisfy(e -> assertThat(e.getName() + "=" + e.getValue()).isEqualTo("JAVA_TOOL_OPTIONS=-Xmx2g"));
        assertThat(String.join(" ", container(manifests, "squall-disagg-planner").getArgs()))
                .contains("--connector knative --graph /etc/squall/graph/graph.yaml")
                .contains("--min prefill=1 --max prefill=4 --min decode=1 --max decode=8");
        assertThat(service(manifests, "squall-disagg-planner").getSpec().getTemplate().getSpec().getServiceAccountName())
                .isEqualTo("squall-disagg-planner");
        assertThat(service(manifests, "squall-disagg-decode").getSpec().getTemplate().getSpec().getAutomountServiceAccountToken())
                .isFalse();
    }

    @Test
    void everyStageReadsTheClusterSecretFromItsKubernetesSecret() {
        Manifests closed = example("knative-disaggregated");
        for (String name : List.of("squall-disagg-gateway", "squall-disagg-prefill", "squall-disagg-decode", "squall-disagg-planner")) {
            assertThat(container(closed, name).getEnv()).filteredOn(e -> e.getName().equals("SQUALL_CLUSTER_SECRET"))
                    .singleElement().satisfies(e -> {
                        assertThat(e.getValue()).as("never inline").isNull();
                        assertThat(e.getValueFrom().getSecretKeyRef().getName()).isEqualTo("squall-cluster");
                        assertThat(e.getValueFrom().getSecretKeyRef().getKey()).isEqualTo("secret");
                    });
            assertThat(String.join(" ", container(closed, name).getArgs())).doesNotContain("secret");
        }
        assertThat(container(base(), "demo-decode").getEnv()).noneMatch(e -> e.getName().equals("SQUALL_CLUSTER_SECRET"));
    }

    @Test
    void gpusAreLimitsAndKernelThreadsAJvmProperty() {
        Graph graph = GraphYaml.parse(BASE.replace("kv: {blocks: 1024, hostMemory: 2Gi}",
                "kv: {blocks: 1024, hostMemory: 2Gi}\n    engine: {kernels: cpu, kernelThreads: 3}"));
        Manifests manifests = Manifests.of(graph, null);

        assertThat(container(manifests, "demo-prefill").getResources().getLimits())
                .containsEntry("nvidia.com/gpu", new Quantity("1")).containsEntry("memory", new Quantity("4Gi"));
        assertThat(container(manifests, "demo-prefill").getResources().getRequests()).doesNotContainKey("nvidia.com/gpu");
        assertThat(String.join(" ", container(manifests, "demo-decode").getArgs())).contains("--kernels cpu");
        assertThat(container(manifests, "demo-decode").getEnv())
                .anySatisfy(e -> assertThat(e.getValue()).isEqualTo("-Dsquall.kernels.threads=3"));
    }

    @Test
    void thePlannerMayReadItsPoolsAndAnnotateRevisionsAndNothingMore() {
        Role revision = (Role) base().byKindAndName().get("Role/demo-planner");
        assertThat(revision.getRules()).hasSize(2);
        assertThat(revision.getRules().get(0).getResources()).containsExactly("services");
        assertThat(revision.getRules().get(0).getResourceNames()).containsExactly("demo-prefill", "demo-decode");
        assertThat(revision.getRules().get(0).getVerbs()).containsExactly("get");
        assertThat(revision.getRules().get(1).getResources()).containsExactly("revisions");
        assertThat(revision.getRules().get(1).getVerbs()).containsExactly("get", "list", "patch");

        Graph legacy = GraphYaml.parse(BASE + "knative: {scaling: pod-autoscaler}\n");
        Role podAutoscaler = (Role) Manifests.of(legacy, null).byKindAndName().get("Role/demo-planner");
        assertThat(podAutoscaler.getRules().get(1).getVerbs()).containsExactly("get", "list");
        assertThat(podAutoscaler.getRules().get(2).getApiGroups()).containsExactly("autoscaling.internal.knative.dev");
        assertThat(podAutoscaler.getRules().get(2).getResources()).containsExactly("podautoscalers");
        assertThat(podAutoscaler.getRules().get(2).getVerbs()).containsExactly("get", "patch");
    }

    @Test
    void onlyTheGraphsPodsReachTheWorkerAndHazelcastPorts() {
        Map<String, HasMetadata> objects = base().byKindAndName();

        NetworkPolicy internal = (NetworkPolicy) objects.get("NetworkPolicy/demo-internal");
        assertThat(internal.getSpec().getPodSelector().getMatchLabels()).isEqualTo(Map.of(Names.GRAPH_LABEL, "demo"));
        assertThat(internal.getSpec().getIngress()).singleElement().satisfies(rule -> {
            assertThat(rule.getFrom()).singleElement().satisfies(peer ->
                    assertThat(peer.getPodSelector().getMatchLabels()).isEqualTo(Map.of(Names.GRAPH_LABEL, "demo")));
            assertThat(rule.getPorts()).extracting(p -> p.getPort().getIntVal()).containsExactly(8080, 7000, 7001, 5701);
        });
        NetworkPolicy gateway = (NetworkPolicy) objects.get("NetworkPolicy/demo-gateway");
        assertThat(gateway.getSpec().getPodSelector().getMatchLabels()).containsEntry(Names.STAGE_LABEL, "gateway");
        assertThat(gateway.getSpec().getIngress().getFirst().getFrom()).isNullOrEmpty();
        assertThat(gateway.getSpec().getIngress().getFirst().getPorts()).extracting(p -> p.getPort().getIntVal())
                .doesNotContain(5701, 7001);
        NetworkPolicy knative = (NetworkPolicy) objects.get("NetworkPolicy/demo-knative");
        assertThat(knative.getSpec().getIngress().getFirst().getPorts()).extracting(p -> p.getPort().getIntVal())
                .containsExactly(8012, 8013, 9090);
        var hz = (io.fabric8.kubernetes.api.model.Service) objects.get("Service/demo-hz");
        assertThat(hz.getSpec().getClusterIP()).isEqualTo("None");
        assertThat(hz.getSpec().getPublishNotReadyAddresses()).isTrue();
        assertThat(hz.getSpec().getPorts().getFirst().getTargetPort()).isEqualTo(new IntOrString(5701));
    }

    @Test
    void aPlannerInTheSlaModeCarriesItsProfileInTheGraphsConfigMap() {
        Graph graph = GraphYaml.parse(BASE.replace("planner: {mode: load}", "planner: {profile: p.json}"));
        assertThatThrownBy(() -> Manifests.of(graph, null)).hasMessageContaining("profile is missing");

        Manifests manifests = Manifests.of(graph, "{\"name\":\"p\"}");

        ConfigMap config = (ConfigMap) manifests.byKindAndName().get("ConfigMap/demo-graph");
        assertThat(config.getData()).containsEntry(Manifests.PROFILE_KEY, "{\"name\":\"p\"}");
        assertThat(String.join(" ", container(manifests, "demo-planner").getArgs()))
                .contains("--mode sla").contains("--profile /etc/squall/graph/profile.json");
    }

    @Test
    void theServicesKeepKnativesAdmissionRules() {
        for (Manifests manifests : List.of(example("knative-aggregated"), example("knative-disaggregated"), base())) {
            for (HasMetadata object : manifests.objects()) {
                if (object instanceof Service service) {
                    assertThat(KnativeRules.violations(service)).as(service.getMetadata().getName()).isEmpty();
                }
            }
        }
    }

    @Test
    void theAdmissionRulesCatchWhatKnativeRefuses() {
        Service good = service(base(), "demo-decode");
        assertThat(broken(good, c -> c.getPorts().getFirst().setContainerPort(8012))).anyMatch(e -> e.contains("reserved port"));
        assertThat(broken(good, c -> c.getPorts().add(c.getPorts().getFirst()))).anyMatch(e -> e.contains("more than one port"));
        assertThat(broken(good, c -> c.getPorts().getFirst().setName("http"))).anyMatch(e -> e.contains("h2c or http1"));
        assertThat(broken(good, c -> c.getReadinessProbe().getHttpGet().setPort(new IntOrString(9000))))
                .anyMatch(e -> e.contains("probe port must match"));
        assertThat(broken(good, c -> c.getEnv().add(new io.fabric8.kubernetes.api.model.EnvVar("PORT", "8080", null))))
                .anyMatch(e -> e.contains("env.PORT: reserved"));
        assertThat(broken(good, c -> c.getVolumeMounts().getFirst().setMountPath("/dev"))).anyMatch(e -> e.contains("reserved path"));
        Service annotated = new ServiceBuilder(good).editMetadata().addToAnnotations(KnativeKeys.MIN_SCALE, "2").endMetadata().build();
        assertThat(KnativeRules.violations(annotated)).anyMatch(e -> e.contains("must be under spec.template"));
        Service hostPath = new ServiceBuilder(good).editSpec().editTemplate().editSpec()
                .addToVolumes(new VolumeBuilder().withName("host").withNewHostPath().withPath("/models").endHostPath().build())
                .endSpec().endTemplate().endSpec().build();
        assertThat(KnativeRules.violations(hostPath)).anyMatch(e -> e.contains("only emptyDir"))
                .anyMatch(e -> e.contains("not mounted"));
        Service inverted = new ServiceBuilder(good).editSpec().editTemplate().editMetadata()
                .addToAnnotations(KnativeKeys.MAX_SCALE, "1").endMetadata().endTemplate().endSpec().build();
        assertThat(KnativeRules.violations(inverted)).anyMatch(e -> e.contains("less than min-scale"));
    }

    @Test
    void everyFileReadsBackAsTheTypedKubernetesObjectWithNoUnknownField() {
        for (Manifests manifests : List.of(example("knative-aggregated"), example("knative-disaggregated"), base())) {
            for (var file : manifests.files().entrySet()) {
                assertThat(ApiSchema.violations(file.getValue())).as(file.getKey()).isEmpty();
            }
        }
        assertThat(ApiSchema.violations("""
                apiVersion: serving.knative.dev/v1
                kind: Service
                metadata: {name: x}
                spec: {template: {spec: {containers: [{image: i, port: 8080}]}}}
                """)).anyMatch(e -> e.contains("port"));
    }

    private static List<String> broken(Service service, Consumer<Container> change) {
        Service copy = new ServiceBuilder(service).build();
        change.accept(copy.getSpec().getTemplate().getSpec().getContainers().getFirst());
        return KnativeRules.violations(copy);
    }

    static Service service(Manifests manifests, String name) {
        return (Service) manifests.objects().stream()
                .filter(o -> o instanceof Service && o.getMetadata().getName().equals(name)).findFirst().orElseThrow();
    }

    static Container container(Manifests manifests, String name) {
        return service(manifests, name).getSpec().getTemplate().getSpec().getContainers().getFirst();
    }

    private static Map<String, String> template(Manifests manifests, String name) {
        return service(manifests, name).getSpec().getTemplate().getMetadata().getAnnotations();
    }

    private static List<String> concat(List<String> list, String extra) {
        List<String> all = new java.util.ArrayList<>(list);
        all.add(extra);
        return all.stream().sorted().toList();
    }
}

package io.squall.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.knative.serving.v1.Service;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.squall.gateway.routing.Routers;
import io.squall.knative.graph.Graph;
import io.squall.knative.manifest.Manifests;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code squall deploy knative} end to end; the cluster is fabric8's Kubernetes mock server in CRUD mode. */
@EnableKubernetesMockClient(crud = true, https = false)
class DeployKnativeCommandTest {

    /** Held so the level set on it is kept: the mock server logs every request through java.util.logging. */
    private static final java.util.logging.Logger MOCK_LOGS = java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");
    private static final ObjectMapper JSON = new ObjectMapper();

    static {
        MOCK_LOGS.setLevel(java.util.logging.Level.WARNING);
    }
    private static final Path EXAMPLES = Path.of("..", "examples");
    private static final Path DISAGGREGATED = EXAMPLES.resolve("knative-disaggregated").resolve("graph.yaml");

    KubernetesClient client;

    @TempDir
    Path dir;

    private record Outcome(int exitCode, String out, String err) {
    }

    private static Outcome squall(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Squall.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Outcome(code, out.toString(), err.toString());
    }

    @Test
    void outWritesOneFilePerObjectAndListsThem() throws Exception {
        Outcome outcome = squall("deploy", "knative", "--graph", DISAGGREGATED.toString(), "--out", dir.toString());

        assertThat(outcome.exitCode()).as(outcome.err()).isZero();
        JsonNode report = JSON.readTree(outcome.out());
        Manifests expected = Manifests.load(DISAGGREGATED);
        assertThat(report.get("graph").asText()).isEqualTo("squall-disagg");
        assertThat(report.get("files")).hasSize(expected.files().size());
        for (Map.Entry<String, String> file : expected.files().entrySet()) {
            assertThat(Files.readString(dir.resolve(file.getKey()))).isEqualTo(file.getValue());
        }
    }

    @Test
    void withoutOutItPrintsOneYamlStream() {
        Outcome outcome = squall("deploy", "knative", "--graph", DISAGGREGATED.toString());

        assertThat(outcome.exitCode()).as(outcome.err()).isZero();
        assertThat(outcome.out().split("(?m)^---$")).hasSize(Manifests.load(DISAGGREGATED).objects().size());
    }

    @Test
    void anInvalidGraphFailsWithOneLineNamingTheField() throws Exception {
        Path graph = dir.resolve("graph.yaml");
        Files.writeString(graph, Files.readString(DISAGGREGATED).replace("replicas: {min: 1, max: 8, initial: 2}",
                "replicas: {min: 3, max: 2}"));

        Outcome outcome = squall("deploy", "knative", "--graph", graph.toString(), "--out", dir.resolve("k8s").toString());

        assertThat(outcome.exitCode()).isEqualTo(1);
        assertThat(outcome.err()).isEqualTo("squall knative: stages.decode.replicas.max: must be >= min (3), got 2"
                + System.lineSeparator());
        assertThat(dir.resolve("k8s")).doesNotExist();
    }

    @Test
    void applyCreatesExactlyTheWrittenObjectsInTheCurrentContextAndDeleteRemovesThem() throws Exception {
        Manifests manifests = Manifests.load(DISAGGREGATED);
        withCluster(() -> {
            Outcome dryRun = squall("deploy", "knative", "--graph", DISAGGREGATED.toString(), "--dry-run");
            assertThat(dryRun.exitCode()).as(dryRun.err()).isZero();
            assertThat(dryRun.out()).contains("+++ graph/Service.serving.knative.dev/squall-disagg-decode");

            Outcome applied = squall("deploy", "knative", "--graph", DISAGGREGATED.toString(), "--apply");
            assertThat(applied.exitCode()).as(applied.err()).isZero();
            assertThat(JSON.readTree(applied.out()).get("applied")).hasSize(manifests.objects().size());
            for (HasMetadata written : manifests.objects()) {
                HasMetadata stored = client.resource(written).get();
                assertThat(stored).as(written.getMetadata().getName()).isNotNull();
                assertThat(stored.getMetadata().getLabels()).isEqualTo(written.getMetadata().getLabels());
            }
            assertThat(client.resources(Service.class).inNamespace("squall").withName("squall-disagg-decode").get().getSpec())
                    .isEqualTo(((Service) manifests.byKindAndName().get("Service/squall-disagg-decode")).getSpec());
            assertThat(squall("deploy", "knative", "--graph", DISAGGREGATED.toString(), "--dry-run").out()).isEmpty();

            Outcome deleted = squall("deploy", "knative", "--graph", DISAGGREGATED.toString(), "--delete");
            assertThat(deleted.exitCode()).as(deleted.err()).isZero();
            for (HasMetadata written : manifests.objects()) {
                assertThat(client.resource(written).get()).isNull();
            }
        });
    }

    @Test
    void applyAndDeleteAreExclusive() {
        Outcome outcome = squall("deploy", "knative", "--graph", DISAGGREGATED.toString(), "--apply", "--delete");

        assertThat(outcome.exitCode()).isEqualTo(2);
        assertThat(outcome.err()).contains("mutually exclusive");
    }

    /** A graph offers exactly the routers the gateway has, by the names {@code --router} takes. */
    @Test
    void theGraphsRouterPoliciesAreTheGatewaysRouters() {
        assertThat(Graph.Router.POLICIES).containsExactlyInAnyOrderElementsOf(
                Arrays.stream(Routers.values()).map(Routers::cliName).toList());
    }

    /** Every stage's command line in the example graphs is one the {@code squall} commands accept. */
    @Test
    void theStagesCommandLinesParseWithTheRealCommands() {
        CommandLine squall = new CommandLine(new Squall());
        for (String example : List.of("knative-aggregated", "knative-disaggregated")) {
            for (HasMetadata object : Manifests.load(EXAMPLES.resolve(example).resolve("graph.yaml")).objects()) {
                if (!(object instanceof Service service)) {
                    continue;
                }
                List<String> args = service.getSpec().getTemplate().getSpec().getContainers().getFirst().getArgs();
                CommandLine.ParseResult parsed = squall.parseArgs(args.toArray(String[]::new));
                assertThat(parsed.subcommand().commandSpec().name()).as(String.join(" ", args)).isEqualTo(args.getFirst());
                assertThat(parsed.subcommand().unmatched()).isEmpty();
            }
        }
    }

    private interface ClusterAction {
        void run() throws Exception;
    }

    /** Points the fabric8 client {@code squall} builds at the mock server, as a kube context would. */
    private void withCluster(ClusterAction action) throws Exception {
        Map<String, String> properties = Map.of(
                Config.KUBERNETES_MASTER_SYSTEM_PROPERTY, client.getMasterUrl().toString(),
                Config.KUBERNETES_AUTH_TRYKUBECONFIG_SYSTEM_PROPERTY, "false",
                Config.KUBERNETES_AUTH_TRYSERVICEACCOUNT_SYSTEM_PROPERTY, "false",
                Config.KUBERNETES_TRUST_CERT_SYSTEM_PROPERTY, "true");
        Map<String, String> saved = new HashMap<>();
        properties.forEach((key, value) -> {
            saved.put(key, System.getProperty(key));
            System.setProperty(key, value);
        });
        try {
            action.run();
        } finally {
            saved.forEach((key, value) -> {
                if (value == null) {
                    System.clearProperty(key);
                } else {
                    System.setProperty(key, value);
                }
            });
        }
    }
}

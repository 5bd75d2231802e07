package io.squall.knative.graph;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import io.squall.scheduler.Pool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static io.squall.knative.TestGraphs.BASE;
import static io.squall.knative.TestGraphs.EXAMPLES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GraphYamlTest {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final JsonSchema SCHEMA = schema();

    @Test
    void theExamplesParseAndRoundTripThroughTheCanonicalForm() {
        for (String example : List.of("knative-aggregated", "knative-disaggregated")) {
            Graph graph = GraphYaml.read(EXAMPLES.resolve(example).resolve("graph.yaml"));

            String canonical = GraphYaml.write(graph);

            assertThat(GraphYaml.parse(canonical)).as(example).isEqualTo(graph);
            assertThat(GraphYaml.write(GraphYaml.parse(canonical))).isEqualTo(canonical);
            assertThat(schemaErrors(canonical)).as(example + " canonical").isEmpty();
            assertThat(schemaErrors(readExample(example))).as(example).isEmpty();
        }
    }

    @Test
    void leftOutFieldsTakeTheirDefaults() {
        Graph graph = GraphYaml.parse(BASE);

        assertThat(graph.platform().scaling()).isEqualTo(KnativeScaling.REVISION);
        assertThat(graph.platform().systemNamespaces()).containsExactly("knative-serving", "kourier-system");
        assertThat(graph.policy().router()).isEqualTo(new Graph.Router("kv", 1.0, 0.0));
        assertThat(graph.model().cacheBytes()).isEqualTo(10L << 30);
        Stages.WorkerStage decode = graph.stages().workers().get(Pool.DECODE);
        assertThat(decode.replicas()).isEqualTo(new Stages.ReplicaBounds(2, 8, 2));
        assertThat(decode.kv()).isEqualTo(new Stages.KvTiers(1024, 2L << 30, 0));
        assertThat(decode.disaggregation()).isEqualTo(new Stages.Disaggregation(512, 4));
        assertThat(decode.runtime().timeoutSeconds()).isEqualTo(300);
        assertThat(graph.stages().workers().get(Pool.PREFILL).runtime().resources().limits())
                .containsEntry(Stages.Resources.GPU, "1").containsEntry("memory", "4Gi");
        assertThat(graph.stages().workers().get(Pool.PREFILL).disaggregation()).isNull();
        assertThat(graph.stages().planner().intervalSeconds()).isEqualTo(10);
        assertThat(graph.stages().disaggregated()).isTrue();
    }

    /** Invalid graphs: the field set (or removed, for {@code null}), the path the error names, a part of its message. */
    static Stream<Arguments> invalidGraphs() {
        return Stream.of(
                Arguments.of("stages.decode.replicas.max", 0, "stages.decode.replicas.max", "within 1..1000", true),
                Arguments.of("stages.decode.replicas.max", 1, "stages.decode.replicas.max", "must be >= min (2), got 1", false),
                Arguments.of("stages.decode.replicas.initial", 9, "stages.decode.replicas.initial", "within min..max (2..8)", false),
                Arguments.of("stages.decode.replica", 3, "stages.decode.replica", "unknown field", true),
                Arguments.of("stages.decode", null, "stages.decode", "is required with a prefill pool", true),
                Arguments.of("stages.aggregated", "{}", "stages.aggregated", "cannot be combined", true),
                Arguments.of("stages.gateway", null, "stages.gateway", "is required", true),
                Arguments.of("stages.gateway.replicas", 3, "stages.gateway.replicas", "must be a mapping", true),
                Arguments.of("stages.gateway.timeoutSeconds", 900, "stages.gateway.timeoutSeconds", "within 1..600", true),
                Arguments.of("stages.gateway.jvmOptions", "-Xmx1g", "stages.gateway.jvmOptions", "must be a list", true),
                Arguments.of("stages.prefill.resources.limits.nvidia\\.com/gpu", "0.5",
                        "stages.prefill.resources.limits[\"nvidia.com/gpu\"]", "whole number", false),
                Arguments.of("stages.prefill.resources.requests.nvidia\\.com/gpu", 2,
                        "stages.prefill.resources.requests[\"nvidia.com/gpu\"]", "as much as its limit", false),
                Arguments.of("stages.prefill.resources.requests.memory", "5Gi",
                        "stages.prefill.resources.requests.memory", "must not exceed its limit (4Gi)", false),
                Arguments.of("stages.prefill.resources.limits.gpus", 1, "stages.prefill.resources.limits.gpus",
                        "is not a resource name", true),
                Arguments.of("stages.prefill.resources.requests.cpu", "two", "stages.prefill.resources.requests.cpu",
                        "Kubernetes quantity", true),
                Arguments.of("stages.decode.kv.hostMemory", "8Gi", "stages.decode.kv.hostMemory", "must fit below", false),
                Arguments.of("stages.decode.kv.disk", "lots", "stages.decode.kv.disk", "byte size", true),
                Arguments.of("stages.decode.engine.kernels", "cuda", "stages.decode.engine.kernels", "must be one of", true),
                Arguments.of("stages.prefill.disaggregation", "{}", "stages.prefill.disaggregation", "unknown field", true),
                Arguments.of("stages.planner.mode", "sla", "stages.planner.profile", "is required in the sla mode", true),
                Arguments.of("stages.planner.profile", "p.json", "stages.planner.profile", "only used in the sla mode", true),
                Arguments.of("slo", null, "slo", "is required when the graph has a planner", true),
                Arguments.of("slo.itlMs", null, "slo.itlMs", "is required", true),
                Arguments.of("name", "Squall_Demo", "name", "a DNS label", true),
                Arguments.of("name", "a".repeat(41), "name", "at most 40 characters", true),
                Arguments.of("image", null, "image", "is required", true),
                Arguments.of("image", "not an image", "image", "container image reference", true),
                Arguments.of("model.source", "models/m.gguf", "model.source", "absolute path inside the container", true),
                Arguments.of("model.cacheSize", "10", "model.cacheSize", "at least 1Mi", false),
                Arguments.of("router.policy", "fastest", "router.policy", "must be one of", true),
                Arguments.of("router.overlapWeight", -1, "router.overlapWeight", ">= 0", true),
                Arguments.of("knative.scaling", "hpa", "knative.scaling", "must be one of", true),
                Arguments.of("knative.systemNamespaces", "[Knative]", "knative.systemNamespaces[0]", "namespace name", true));
    }

    @ParameterizedTest(name = "{0} = {1}")
    @MethodSource("invalidGraphs")
    void anInvalidGraphIsRefusedNamingTheField(String field, Object value, String path, String message, boolean schemaToo)
            throws Exception {
        String yaml = edit(BASE, field, value);

        assertThatThrownBy(() -> GraphYaml.parse(yaml))
                .isInstanceOf(GraphException.class)
                .hasMessageStartingWith(path + ": ")
                .hasMessageContaining(message)
                .satisfies(e -> assertThat(((GraphException) e).path()).isEqualTo(path));
        if (schemaToo) {
            assertThat(schemaErrors(yaml)).as("the schema refuses it too").isNotEmpty();
        }
    }

    @Test
    void notYamlAndDuplicateKeysAreRefused() {
        assertThatThrownBy(() -> GraphYaml.parse("name: [unclosed")).hasMessageStartingWith("graph: not valid YAML at line");
        assertThatThrownBy(() -> GraphYaml.parse("name: a\nname: b\n")).hasMessageContaining("Duplicate field 'name'");
        assertThatThrownBy(() -> GraphYaml.parse("- a list")).hasMessage("graph: the document must be a YAML mapping");
    }

    @Test
    void byteSizesAndQuantitiesReadAsKubernetesWritesThem() {
        assertThat(Quantities.bytes("20Gi")).isEqualTo(20L << 30);
        assertThat(Quantities.bytes("4G")).isEqualTo(4_000_000_000L);
        assertThat(Quantities.bytes("1.5Gi")).isNull();
        assertThat(Quantities.bytes("99999999Ei")).isNull();
        assertThat(Quantities.formatBytes(20L << 30)).isEqualTo("20Gi");
        assertThat(Quantities.formatBytes(1000)).isEqualTo("1000");
        assertThat(Quantities.formatBytes(0)).isEqualTo("0");
        assertThat(Quantities.value("500m")).isEqualByComparingTo("0.5");
        assertThat(Quantities.value("1Ki")).isEqualByComparingTo("1024");
        assertThat(Quantities.value("1e3")).isEqualByComparingTo("1000");
    }

    /** {@code yaml} with {@code field} (dots separate keys; {@code \.} is a dot inside a key) set or removed. */
    static String edit(String yaml, String field, Object value) throws Exception {
        ObjectNode root = (ObjectNode) YAML.readTree(yaml);
        String[] keys = field.split("(?<!\\\\)\\.");
        ObjectNode node = root;
        for (int i = 0; i < keys.length - 1; i++) {
            String key = keys[i].replace("\\.", ".");
            JsonNode child = node.get(key);
            node = child instanceof ObjectNode object ? object : node.putObject(key);
        }
        String last = keys[keys.length - 1].replace("\\.", ".");
        if (value == null) {
            node.remove(last);
        } else if (value instanceof String s && (s.startsWith("{") || s.startsWith("["))) {
            node.set(last, YAML.readTree(s));
        } else {
            node.set(last, YAML.valueToTree(value));
        }
        return YAML.writeValueAsString(root);
    }

    static Set<ValidationMessage> schemaErrors(String yaml) {
        try {
            return SCHEMA.validate(YAML.readTree(yaml));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static String readExample(String example) {
        try {
            return java.nio.file.Files.readString(EXAMPLES.resolve(example).resolve("graph.yaml"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static JsonSchema schema() {
        try (InputStream in = GraphYaml.class.getResourceAsStream(GraphYaml.SCHEMA_RESOURCE)) {
            return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(in);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}

package io.squall.knative.graph;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import io.squall.knative.graph.Stages.Disaggregation;
import io.squall.knative.graph.Stages.Engine;
import io.squall.knative.graph.Stages.GatewayStage;
import io.squall.knative.graph.Stages.KvTiers;
import io.squall.knative.graph.Stages.PlannerStage;
import io.squall.knative.graph.Stages.ReplicaBounds;
import io.squall.knative.graph.Stages.Resources;
import io.squall.knative.graph.Stages.StageRuntime;
import io.squall.knative.graph.Stages.WorkerStage;
import io.squall.scheduler.Pool;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Reads {@code graph.yaml} into a {@link Graph}, checking every field, and writes a graph back as canonical
 * YAML with every default spelt out ({@link #write(Graph)}; {@code parse(write(g))} equals {@code g}).
 *
 * <p>Unknown fields, duplicate keys, wrong types and values out of range are {@link GraphException}s naming the
 * field, e.g. {@code stages.decode.replicas.max: must be within 1..1000, got 0}. The rules are the ones
 * {@code graph.schema.json} publishes. Thread-safe.
 */
public final class GraphYaml {

    /** The JSON schema of the graph file, a resource beside this class. */
    public static final String SCHEMA_RESOURCE = "graph.schema.json";

    static final int MAX_REPLICAS = 1000;

    private static final Pattern DNS_LABEL = Pattern.compile("[a-z]([-a-z0-9]*[a-z0-9])?");
    private static final Pattern NAMESPACE = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    private static final Pattern SUBDOMAIN = Pattern.compile("[a-z0-9]([-a-z0-9.]*[a-z0-9])?");
    private static final Pattern IMAGE = Pattern.compile(
            "(?:[a-zA-Z0-9.-]+(?::[0-9]+)?/)?[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
                    + "(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::\\w[\\w.-]{0,127})?(?:@sha256:[a-f0-9]{64})?");
    private static final Pattern MODEL_SOURCE = Pattern.compile(
            "hf:[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+/[^\\s]+\\.gguf|https?://[^\\s]+|/[^\\s]+");
    private static final Pattern RESOURCE_NAME = Pattern.compile(
            "cpu|memory|ephemeral-storage|hugepages-[0-9A-Za-z]+"
                    + "|[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");
    private static final Pattern WHOLE = Pattern.compile("\\d+");
    private static final String DNS_RULE = "a DNS label: lower-case letters, digits and '-', starting with a letter";

    private static final ObjectMapper READER = new ObjectMapper(new YAMLFactory())
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    private static final ObjectMapper WRITER = new ObjectMapper(new YAMLFactory()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS));

    private GraphYaml() {
    }

    /** Reads the graph file at {@code file}. */
    public static Graph read(Path file) {
        try {
            return parse(Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read graph " + file + ": " + e.getMessage(), e);
        }
    }

    /** Parses and checks a graph document. */
    public static Graph parse(String yaml) {
        JsonNode document;
        try {
            document = READER.readTree(yaml);
        } catch (JsonProcessingException e) {
            var at = e.getLocation();
            throw new GraphException("", "not valid YAML" + (at == null ? "" : " at line " + at.getLineNr()) + ": "
                    + e.getOriginalMessage());
        }
        YamlFields root = YamlFields.root(document);
        String name = root.string("name", null, DNS_LABEL, DNS_RULE);
        if (name == null) {
            throw new GraphException("name", "is required");
        }
        if (name.length() > Graph.MAX_NAME_LENGTH) {
            throw new GraphException("name", "must be at most " + Graph.MAX_NAME_LENGTH + " characters, got " + name.length());
        }
        String namespace = root.string("namespace", "default", NAMESPACE, "a Kubernetes namespace name");
        String image = root.string("image", null, IMAGE, "a container image reference such as registry.example.com/squall:0.1.0");
        if (image == null) {
            throw new GraphException("image", "is required (the image `squall image --push REF` pushed)");
        }
        Graph.Model model = model(root.object("model"));
        String clusterSecret = root.string("clusterSecret", null, SUBDOMAIN, "a Secret name");
        Graph.Platform platform = platform(image, clusterSecret, root.object("knative"));
        Graph.Router router = router(root.object("router"));
        Stages stages = stages(root.object("stages"), root);
        Graph.Slo slo = slo(root, stages.planner() != null);
        root.finish();
        return new Graph(name, namespace, model, platform, new Graph.Policy(router, slo), stages);
    }

    private static Graph.Model model(YamlFields fields) {
        String source = fields.string("source", null, MODEL_SOURCE,
                "hf:OWNER/REPO/FILE.gguf, an http(s):// URL, or an absolute path inside the container");
        if (source == null) {
            throw new GraphException(fields.pathOf("source"), "is required");
        }
        String servedName = fields.string("servedName", null);
        long cache = fields.bytes("cacheSize", 10L << 30);
        if (cache < 1L << 20) {
            throw new GraphException(fields.pathOf("cacheSize"), "must be at least 1Mi");
        }
        fields.finish();
        return new Graph.Model(source, servedName, cache);
    }

    private static Graph.Platform platform(String image, String clusterSecret, YamlFields fields) {
        String scaling = fields.choice("scaling", KnativeScaling.REVISION.yamlName(),
                List.of(KnativeScaling.REVISION.yamlName(), KnativeScaling.POD_AUTOSCALER.yamlName()));
        List<String> system = namespaces(fields, "systemNamespaces", List.of("knative-serving", "kourier-system"));
        List<String> prometheus = namespaces(fields, "prometheusNamespaces", List.of("monitoring"));
        fields.finish();
        KnativeScaling mechanism = scaling.equals(KnativeScaling.REVISION.yamlName())
                ? KnativeScaling.REVISION : KnativeScaling.POD_AUTOSCALER;
        return new Graph.Platform(image, mechanism, system, prometheus, clusterSecret);
    }

    private static List<String> namespaces(YamlFields fields, String key, List<String> fallback) {
        List<String> names = fields.strings(key, fallback);
        for (int i = 0; i < names.size(); i++) {
            if (!NAMESPACE.matcher(names.get(i)).matches()) {
                throw new GraphException(fields.pathOf(key) + "[" + i + "]", "must be a namespace name, got \"" + names.get(i) + "\"");
            }
        }
        return names;
    }

    private static Graph.Router router(YamlFields fields) {
        String policy = fields.choice("policy", "kv", Graph.Router.POLICIES);
        double overlapWeight = fields.number("overlapWeight", 1.0, 0);
        double temperature = fields.number("temperature", 0.0, 0);
        fields.finish();
        return new Graph.Router(policy, overlapWeight, temperature);
    }

    private static Graph.Slo slo(YamlFields root, boolean required) {
        if (!root.has("slo")) {
            root.object("slo");
            if (required) {
                throw new GraphException("slo", "is required when the graph has a planner (ttftMs and itlMs)");
            }
            return null;
        }
        YamlFields fields = root.object("slo");
        int ttft = fields.integer("ttftMs", -1, 1, 3_600_000);
        int itl = fields.integer("itlMs", -1, 1, 3_600_000);
        if (ttft < 0 || itl < 0) {
            throw new GraphException(fields.pathOf(ttft < 0 ? "ttftMs" : "itlMs"), "is required");
        }
        fields.finish();
        return new Graph.Slo(ttft, itl);
    }

    private static Stages stages(YamlFields fields, YamlFields root) {
        if (!root.has("stages")) {
            throw new GraphException("stages", "is required");
        }
        if (!fields.has("gateway")) {
            throw new GraphException(fields.pathOf("gateway"), "is required");
        }
        GatewayStage gateway = gateway(fields.object("gateway"));
        Map<Pool, WorkerStage> workers = new EnumMap<>(Pool.class);
        for (Pool pool : Pool.values()) {
            String key = pool.name().toLowerCase(Locale.ROOT);
            if (fields.has(key)) {
                workers.put(pool, worker(fields.object(key), pool));
            } else {
                fields.object(key);
            }
        }
        if (workers.containsKey(Pool.AGGREGATED) && workers.size() > 1) {
            throw new GraphException(fields.pathOf("aggregated"), "cannot be combined with prefill and decode pools");
        }
        if (workers.isEmpty()) {
            throw new GraphException(fields.path(), "needs an aggregated pool, or a prefill and a decode pool");
        }
        if (!workers.containsKey(Pool.AGGREGATED) && workers.size() == 1) {
            String missing = workers.containsKey(Pool.PREFILL) ? "decode" : "prefill";
            throw new GraphException(fields.pathOf(missing), "is required with a "
                    + (missing.equals("decode") ? "prefill" : "decode") + " pool");
        }
        PlannerStage planner = fields.has("planner") ? planner(fields.object("planner")) : null;
        if (planner == null) {
            fields.object("planner");
        }
        fields.finish();
        return new Stages(gateway, workers, planner);
    }

    private static GatewayStage gateway(YamlFields fields) {
        ReplicaBounds replicas = replicas(fields.object("replicas"));
        StageRuntime runtime = runtime(fields);
        int target = fields.integer("concurrencyTarget", 100, 1, 100_000);
        String keys = fields.string("apiKeysSecret", null, SUBDOMAIN, "a Secret name");
        fields.finish();
        return new GatewayStage(replicas, runtime, target, keys);
    }

    private static WorkerStage worker(YamlFields fields, Pool pool) {
        ReplicaBounds replicas = replicas(fields.object("replicas"));
        StageRuntime runtime = runtime(fields);
        YamlFields engineFields = fields.object("engine");
        Engine engine = new Engine(engineFields.integer("maxSequences", 64, 1, 65_536),
                engineFields.integer("context", 4096, 2, 1 << 24),
                engineFields.choice("kernels", null, Engine.KERNELS),
                engineFields.integer("kernelThreads", 0, 0, 4096));
        engineFields.finish();
        YamlFields kvFields = fields.object("kv");
        KvTiers kv = new KvTiers(kvFields.integer("blocks", 4096, 1, 1 << 28), kvFields.bytes("hostMemory", 0),
                kvFields.bytes("disk", 0));
        String memoryLimit = runtime.resources().limits().get("memory");
        if (memoryLimit != null && kv.hostBytes() > 0
                && Quantities.value(memoryLimit).compareTo(BigDecimal.valueOf(kv.hostBytes())) <= 0) {
            throw new GraphException(kvFields.pathOf("hostMemory"), "G2 host memory (" + Quantities.formatBytes(kv.hostBytes())
                    + ") must fit below resources.limits.memory (" + memoryLimit + ") with room for the JVM heap");
        }
        kvFields.finish();
        Disaggregation disaggregation = null;
        if (pool == Pool.DECODE) {
            YamlFields d = fields.object("disaggregation");
            disaggregation = new Disaggregation(d.integer("minTokens", 512, 0, 1 << 24), d.integer("prefillMaxQueue", 4, 0, 1 << 20));
            d.finish();
        }
        fields.finish();
        return new WorkerStage(replicas, runtime, engine, kv, disaggregation);
    }

    private static PlannerStage planner(YamlFields fields) {
        StageRuntime runtime = runtime(fields);
        int interval = fields.integer("intervalSeconds", 10, 1, 3600);
        String mode = fields.choice("mode", "sla", PlannerStage.MODES);
        String profile = fields.string("profile", null);
        if (mode.equals("sla") && profile == null) {
            throw new GraphException(fields.pathOf("profile"), "is required in the sla mode (a `squall bench profile` file)");
        }
        if (mode.equals("load") && profile != null) {
            throw new GraphException(fields.pathOf("profile"), "is only used in the sla mode");
        }
        fields.finish();
        return new PlannerStage(runtime, interval, mode, profile);
    }

    private static ReplicaBounds replicas(YamlFields fields) {
        int min = fields.integer("min", 1, 1, MAX_REPLICAS);
        int max = fields.integer("max", min, 1, MAX_REPLICAS);
        if (max < min) {
            throw new GraphException(fields.pathOf("max"), "must be >= min (" + min + "), got " + max);
        }
        int initial = fields.integer("initial", min, 1, MAX_REPLICAS);
        if (initial < min || initial > max) {
            throw new GraphException(fields.pathOf("initial"), "must be within min..max (" + min + ".." + max + "), got " + initial);
        }
        fields.finish();
        return new ReplicaBounds(min, max, initial);
    }

    private static StageRuntime runtime(YamlFields stage) {
        YamlFields fields = stage.object("resources");
        TreeMap<String, String> requests = resourceList(fields, "requests");
        TreeMap<String, String> limits = resourceList(fields, "limits");
        fields.finish();
        for (Map.Entry<String, String> request : requests.entrySet()) {
            String resource = request.getKey();
            String limit = limits.get(resource);
            boolean extended = resource.contains("/");
            String path = YamlFields.join(fields.pathOf("requests"), resource);
            if (extended && !request.getValue().equals(limit)) {
                throw new GraphException(path, "an extended resource must be requested as much as its limit (set it under limits only)");
            }
            if (limit != null && Quantities.value(request.getValue()).compareTo(Quantities.value(limit)) > 0) {
                throw new GraphException(path, "must not exceed its limit (" + limit + "), got " + request.getValue());
            }
        }
        List<String> jvm = stage.strings("jvmOptions", List.of());
        int timeout = stage.integer("timeoutSeconds", 300, 1, StageRuntime.MAX_TIMEOUT_SECONDS);
        int startup = stage.integer("startupSeconds", 1800, 10, 86_400);
        return new StageRuntime(new Resources(requests, limits), jvm, timeout, startup);
    }

    private static TreeMap<String, String> resourceList(YamlFields resources, String key) {
        YamlFields list = resources.object(key);
        TreeMap<String, String> quantities = resources.quantities(key);
        for (Map.Entry<String, String> entry : quantities.entrySet()) {
            if (!RESOURCE_NAME.matcher(entry.getKey()).matches()) {
                throw new GraphException(list.pathOf(entry.getKey()), "is not a resource name (cpu, memory, ephemeral-storage, "
                        + "hugepages-SIZE or DOMAIN/NAME such as nvidia.com/gpu)");
            }
            if (entry.getKey().contains("/") && !WHOLE.matcher(entry.getValue()).matches()) {
                throw new GraphException(list.pathOf(entry.getKey()), "an extended resource is a whole number, got " + entry.getValue());
            }
        }
        return quantities;
    }

    /** The graph as canonical YAML: every field present, defaults spelt out, maps in a fixed order. */
    public static String write(Graph graph) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("name", graph.name());
        root.put("namespace", graph.namespace());
        root.put("image", graph.platform().image());
        if (graph.platform().clusterSecret() != null) {
            root.put("clusterSecret", graph.platform().clusterSecret());
        }
        Map<String, Object> model = new LinkedHashMap<>();
        model.put("source", graph.model().source());
        if (graph.model().servedName() != null) {
            model.put("servedName", graph.model().servedName());
        }
        model.put("cacheSize", Quantities.formatBytes(graph.model().cacheBytes()));
        root.put("model", model);
        root.put("knative", ordered("scaling", graph.platform().scaling().yamlName(),
                "systemNamespaces", graph.platform().systemNamespaces(),
                "prometheusNamespaces", graph.platform().prometheusNamespaces()));
        Graph.Router router = graph.policy().router();
        root.put("router", ordered("policy", router.policy(), "overlapWeight", router.overlapWeight(),
                "temperature", router.temperature()));
        if (graph.policy().slo() != null) {
            root.put("slo", ordered("ttftMs", graph.policy().slo().ttftMs(), "itlMs", graph.policy().slo().itlMs()));
        }
        Map<String, Object> stages = new LinkedHashMap<>();
        GatewayStage gateway = graph.stages().gateway();
        Map<String, Object> g = stage(gateway.replicas(), gateway.runtime());
        g.put("concurrencyTarget", gateway.concurrencyTarget());
        if (gateway.apiKeysSecret() != null) {
            g.put("apiKeysSecret", gateway.apiKeysSecret());
        }
        stages.put("gateway", g);
        graph.stages().workers().forEach((pool, worker) -> {
            Map<String, Object> w = stage(worker.replicas(), worker.runtime());
            Engine e = worker.engine();
            Map<String, Object> engine = ordered("maxSequences", e.maxSequences(), "context", e.context());
            if (e.kernels() != null) {
                engine.put("kernels", e.kernels());
            }
            engine.put("kernelThreads", e.kernelThreads());
            w.put("engine", engine);
            w.put("kv", ordered("blocks", worker.kv().blocks(), "hostMemory", Quantities.formatBytes(worker.kv().hostBytes()),
                    "disk", Quantities.formatBytes(worker.kv().diskBytes())));
            if (worker.disaggregation() != null) {
                w.put("disaggregation", ordered("minTokens", worker.disaggregation().minTokens(),
                        "prefillMaxQueue", worker.disaggregation().prefillMaxQueue()));
            }
            stages.put(pool.name().toLowerCase(Locale.ROOT), w);
        });
        PlannerStage planner = graph.stages().planner();
        if (planner != null) {
            Map<String, Object> p = stage(null, planner.runtime());
            p.put("intervalSeconds", planner.intervalSeconds());
            p.put("mode", planner.mode());
            if (planner.profile() != null) {
                p.put("profile", planner.profile());
            }
            stages.put("planner", p);
        }
        root.put("stages", stages);
        try {
            return WRITER.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a graph as YAML", e);
        }
    }

    private static Map<String, Object> stage(ReplicaBounds replicas, StageRuntime runtime) {
        Map<String, Object> stage = new LinkedHashMap<>();
        if (replicas != null) {
            stage.put("replicas", ordered("min", replicas.min(), "max", replicas.max(), "initial", replicas.initial()));
        }
        Map<String, Object> resources = new LinkedHashMap<>();
        resources.put("requests", new TreeMap<>(runtime.resources().requests()));
        resources.put("limits", new TreeMap<>(runtime.resources().limits()));
        stage.put("resources", resources);
        stage.put("jvmOptions", new ArrayList<>(runtime.jvmOptions()));
        stage.put("timeoutSeconds", runtime.timeoutSeconds());
        stage.put("startupSeconds", runtime.startupSeconds());
        return stage;
    }

    private static Map<String, Object> ordered(Object... keysAndValues) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }
}

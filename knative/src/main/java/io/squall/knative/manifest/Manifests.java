package io.squall.knative.manifest;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.squall.knative.graph.Graph;
import io.squall.knative.graph.GraphYaml;
import io.squall.scheduler.Pool;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Everything a graph deploys, in the order it is applied: the planner's ServiceAccount, Role and RoleBinding (when
 * the graph has a planner), the graph's ConfigMap, the headless Service of its Hazelcast cluster, its network
 * policies, then one Knative Service per stage (gateway, worker pools, planner).
 *
 * <p>Deterministic: the same graph gives byte-identical files (labels, annotations and maps are sorted, nothing
 * depends on time, randomness or the machine). Immutable and thread-safe.
 */
public final class Manifests {

    /** The graph's key in its ConfigMap (and the file name the planner reads). */
    public static final String GRAPH_KEY = "graph.yaml";
    /** The planner profile's key in the graph's ConfigMap. */
    public static final String PROFILE_KEY = "profile.json";

    private static final Pattern WRITTEN_FILE = Pattern.compile("\\d\\d-[a-z]+-[a-z0-9.-]+\\.yaml");
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    private final Graph graph;
    private final List<HasMetadata> objects;

    private Manifests(Graph graph, List<HasMetadata> objects) {
        this.graph = graph;
        this.objects = List.copyOf(objects);
    }

    /**
     * The objects of {@code graph}.
     *
     * @param profile the planner profile's JSON when the planner runs in the {@code sla} mode, else {@code null}
     * @throws IllegalArgumentException when the graph's planner needs a profile and none is given
     */
    public static Manifests of(Graph graph, String profile) {
        Objects.requireNonNull(graph, "graph");
        boolean needsProfile = graph.stages().planner() != null && graph.stages().planner().profile() != null;
        if (needsProfile != (profile != null)) {
            throw new IllegalArgumentException(needsProfile ? "the planner's profile is missing" : "the graph takes no profile");
        }
        List<HasMetadata> objects = new ArrayList<>();
        if (graph.stages().planner() != null) {
            objects.add(ClusterObjects.plannerAccount(graph));
            objects.add(ClusterObjects.plannerRole(graph));
            objects.add(ClusterObjects.plannerBinding(graph));
        }
        Map<String, String> files = new TreeMap<>();
        files.put(GRAPH_KEY, GraphYaml.write(graph));
        if (profile != null) {
            files.put(PROFILE_KEY, profile);
        }
        objects.add(ClusterObjects.graphConfigMap(graph, files));
        objects.add(ClusterObjects.hazelcastService(graph));
        objects.addAll(ClusterObjects.networkPolicies(graph));
        objects.add(KnativeServices.gateway(graph));
        for (Pool pool : graph.stages().workers().keySet()) {
            objects.add(KnativeServices.worker(graph, pool));
        }
        if (graph.stages().planner() != null) {
            objects.add(KnativeServices.planner(graph));
        }
        return new Manifests(graph, objects);
    }

    /**
     * Reads the graph file and, for a planner in the {@code sla} mode, its profile (a path relative to the graph
     * file's directory), and builds the objects.
     */
    public static Manifests load(Path graphFile) {
        Graph graph = GraphYaml.read(graphFile);
        String profile = null;
        if (graph.stages().planner() != null && graph.stages().planner().profile() != null) {
            Path dir = graphFile.toAbsolutePath().getParent();
            Path file = dir.resolve(graph.stages().planner().profile());
            try {
                profile = Files.readString(file);
            } catch (IOException e) {
                throw new UncheckedIOException("stages.planner.profile: cannot read " + file + ": " + e.getMessage(), e);
            }
        }
        return of(graph, profile);
    }

    public Graph graph() {
        return graph;
    }

    /** The objects in apply order. */
    public List<HasMetadata> objects() {
        return objects;
    }

    /**
     * The files {@link #writeTo(Path)} writes, by name: {@code NN-KIND-NAME.yaml}, numbered in apply order so that
     * {@code kubectl apply -f DIR} applies them in that order too.
     */
    public SortedMap<String, String> files() {
        SortedMap<String, String> files = new TreeMap<>();
        for (int i = 0; i < objects.size(); i++) {
            HasMetadata object = objects.get(i);
            String name = String.format(Locale.ROOT, "%02d-%s-%s.yaml", i + 1, fileKind(object), object.getMetadata().getName());
            files.put(name, yaml(object));
        }
        return Collections.unmodifiableSortedMap(files);
    }

    /**
     * Writes {@link #files()} into {@code dir} (created if needed), and deletes files of an earlier run there
     * ({@code NN-KIND-NAME.yaml}) that this graph no longer has, so {@code kubectl apply -f DIR} sees exactly this
     * graph. Other files are left alone.
     */
    public void writeTo(Path dir) {
        SortedMap<String, String> files = files();
        try {
            Files.createDirectories(dir);
            try (Stream<Path> existing = Files.list(dir)) {
                for (Path file : existing.toList()) {
                    String name = file.getFileName().toString();
                    if (WRITTEN_FILE.matcher(name).matches() && !files.containsKey(name)) {
                        Files.delete(file);
                    }
                }
            }
            for (Map.Entry<String, String> file : files.entrySet()) {
                Files.writeString(dir.resolve(file.getKey()), file.getValue());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write manifests to " + dir + ": " + e.getMessage(), e);
        }
    }

    /** The kind in a file name: {@code kservice} for a Knative Service, so it is not mistaken for a Kubernetes one. */
    private static String fileKind(HasMetadata object) {
        boolean knative = object.getApiVersion().startsWith("serving.knative.dev/");
        return knative ? "kservice" : object.getKind().toLowerCase(Locale.ROOT);
    }

    /** One object as YAML, the way {@link #files()} writes it. */
    public static String yaml(HasMetadata object) {
        String yaml = SERIALIZATION.asYaml(object);
        return yaml.startsWith("---\n") ? yaml.substring(4) : yaml;
    }

    /** The objects by {@code KIND/NAME}, in apply order. */
    public Map<String, HasMetadata> byKindAndName() {
        Map<String, HasMetadata> index = new LinkedHashMap<>();
        objects.forEach(o -> index.put(o.getKind() + "/" + o.getMetadata().getName(), o));
        return index;
    }
}

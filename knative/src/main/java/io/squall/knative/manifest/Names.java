package io.squall.knative.manifest;

import io.squall.knative.graph.Graph;

import java.util.Map;
import java.util.TreeMap;

/**
 * How the objects of a graph are named and labelled. Every object carries {@value #GRAPH_LABEL}; pods also carry
 * {@value #STAGE_LABEL}, which the headless Service and the network policies select by.
 */
public final class Names {

    /** The label naming the graph an object belongs to. */
    public static final String GRAPH_LABEL = "squall.io/graph";
    /** The label naming the stage a Service or pod runs. */
    public static final String STAGE_LABEL = "squall.io/stage";
    /** Kubernetes' recommended label for the tool that manages an object. */
    public static final String MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
    /** The value of {@link #MANAGED_BY_LABEL}. */
    public static final String MANAGER = "squall";

    private Names() {
    }

    /** The Knative Service of {@code stage}: {@code GRAPH-STAGE}. */
    public static String service(Graph graph, Stage stage) {
        return graph.name() + "-" + stage.id();
    }

    /** The headless Service whose DNS name lists the pods of the graph's Hazelcast cluster. */
    public static String hazelcastService(Graph graph) {
        return graph.name() + "-hz";
    }

    /** The ConfigMap holding the graph (and the planner's profile). */
    public static String graphConfigMap(Graph graph) {
        return graph.name() + "-graph";
    }

    /** The planner's ServiceAccount, Role and RoleBinding. */
    public static String planner(Graph graph) {
        return graph.name() + "-planner";
    }

    /** The labels of every object of the graph. */
    public static Map<String, String> graphLabels(Graph graph) {
        Map<String, String> labels = new TreeMap<>();
        labels.put(MANAGED_BY_LABEL, MANAGER);
        labels.put(GRAPH_LABEL, graph.name());
        return labels;
    }

    /** The labels of a stage's Service and pods. */
    public static Map<String, String> stageLabels(Graph graph, Stage stage) {
        Map<String, String> labels = graphLabels(graph);
        labels.put(STAGE_LABEL, stage.id());
        return labels;
    }
}

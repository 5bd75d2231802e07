package io.squall.knative.graph;

import java.util.List;
import java.util.Objects;

/**
 * A serving graph as the operator writes it in {@code graph.yaml}: which model, which stages with how many
 * replicas and what resources, the latency targets the planner holds, the router's policy, and the Knative
 * cluster it runs on. Read with {@link GraphYaml#parse(String)}, which checks every field and names the one
 * that is wrong; the same rules are published as {@code graph.schema.json} beside this class.
 *
 * <p>Immutable and thread-safe, like every type in this package.
 *
 * @param name the graph's name, a DNS label of at most {@value #MAX_NAME_LENGTH} characters; every object
 *             deployed for it is named {@code NAME-…} and labelled {@code squall.io/graph=NAME}
 * @param namespace the Kubernetes namespace the graph runs in
 * @param model the model every stage serves
 * @param platform the image and the Knative cluster's particulars
 * @param policy the router's policy and the latency targets
 * @param stages the stages and their sizes
 */
public record Graph(String name, String namespace, Model model, Platform platform, Policy policy, Stages stages) {

    /** Longest graph name: stage services are named {@code NAME-STAGE} and Knative revisions add {@code -00001}. */
    public static final int MAX_NAME_LENGTH = 40;

    public Graph {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(platform, "platform");
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(stages, "stages");
    }

    /**
     * The model the stages serve.
     *
     * @param source a path inside the container ({@code /models/m.gguf}), an {@code https://} URL, or a hub name
     *               {@code hf:OWNER/REPO/FILE.gguf}; URLs and hub names are downloaded once per pod into its model cache
     * @param servedName the id clients send, or {@code null} for the file name without {@code .gguf}
     * @param cacheBytes the size of each pod's model cache volume in bytes (downloads land there)
     */
    public record Model(String source, String servedName, long cacheBytes) {

        public Model {
            Objects.requireNonNull(source, "source");
            if (cacheBytes <= 0) {
                throw new IllegalArgumentException("cacheBytes must be positive");
            }
        }

        /** Whether the model is fetched at start (URL or hub name) rather than read from a path in the image. */
        public boolean downloaded() {
            return source.startsWith("hf:") || source.startsWith("https://") || source.startsWith("http://");
        }
    }

    /**
     * Where and how the graph runs.
     *
     * @param image the container image of every stage (the one {@code squall image} builds)
     * @param scaling how the planner's decisions reach Knative
     * @param systemNamespaces namespaces of Knative's data plane (activator, autoscaler, ingress) let through the
     *                         graph's network policies to the queue-proxy ports
     * @param prometheusNamespaces namespaces whose pods may scrape the stages' {@code /metrics}
     * @param clusterSecret a Secret in the graph's namespace whose key {@value #CLUSTER_SECRET_KEY} holds the secret
     *                      every stage proves to its peers (given to each stage as {@code SQUALL_CLUSTER_SECRET}), or
     *                      {@code null} for an open cluster
     */
    public record Platform(String image, KnativeScaling scaling, List<String> systemNamespaces,
                           List<String> prometheusNamespaces, String clusterSecret) {

        /** The key of the cluster secret in its Kubernetes Secret. */
        public static final String CLUSTER_SECRET_KEY = "secret";

        public Platform {
            Objects.requireNonNull(image, "image");
            Objects.requireNonNull(scaling, "scaling");
            systemNamespaces = List.copyOf(systemNamespaces);
            prometheusNamespaces = List.copyOf(prometheusNamespaces);
        }
    }

    /**
     * What the gateway and the planner aim for.
     *
     * @param router how the gateway picks a worker
     * @param slo the latency targets the planner sizes the pools for
     */
    public record Policy(Router router, Slo slo) {

        public Policy {
            Objects.requireNonNull(router, "router");
            Objects.requireNonNull(slo, "slo");
        }
    }

    /**
     * The gateway's routing policy (see {@code docs/routing.md}).
     *
     * @param policy {@code kv}, {@code kv-approx}, {@code round-robin}, {@code random} or {@code least-loaded}
     * @param overlapWeight kv only: weight of prefill work against decode load, &ge; 0
     * @param temperature kv only: 0 picks the cheapest worker, above 0 samples by a softmax of the costs
     */
    public record Router(String policy, double overlapWeight, double temperature) {

        /** The policies the gateway knows, by their command-line names. */
        public static final List<String> POLICIES = List.of("kv", "kv-approx", "round-robin", "random", "least-loaded");

        public Router {
            if (!POLICIES.contains(policy)) {
                throw new IllegalArgumentException("router policy must be one of " + POLICIES);
            }
            if (!(overlapWeight >= 0) || !(temperature >= 0)) {
                throw new IllegalArgumentException("overlapWeight and temperature must be >= 0");
            }
        }
    }

    /**
     * Latency targets.
     *
     * @param ttftMs time to first token the planner sizes the prefill (or aggregated) pool for, in milliseconds
     * @param itlMs inter-token latency the planner sizes the decode (or aggregated) pool for, in milliseconds
     */
    public record Slo(int ttftMs, int itlMs) {

        public Slo {
            if (ttftMs <= 0 || itlMs <= 0) {
                throw new IllegalArgumentException("latency targets must be positive");
            }
        }
    }
}

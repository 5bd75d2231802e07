package io.squall.knative.scaling;

import io.fabric8.knative.internal.autoscaling.v1alpha1.PodAutoscaler;
import io.fabric8.knative.serving.v1.Revision;
import io.fabric8.knative.serving.v1.Service;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.squall.knative.graph.Graph;
import io.squall.knative.graph.KnativeScaling;
import io.squall.knative.graph.Stages.ReplicaBounds;
import io.squall.knative.manifest.KnativeKeys;
import io.squall.knative.manifest.Names;
import io.squall.knative.manifest.Stage;
import io.squall.scheduler.Pool;
import io.squall.scheduler.Replicas;
import io.squall.scheduler.ScalingConnector;
import io.squall.scheduler.ScalingException;

import java.util.Comparator;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * The planner's Knative connector: a decision for a pool pins the scale bounds of the running Revision of the
 * pool's Knative Service, {@code autoscaling.knative.dev/min-scale} = {@code max-scale} = the replicas, without
 * touching the Service's revision template. A change to the template would create a new Revision and replace
 * every worker (dropping its KV cache); a change to the running Revision's bounds only adds or removes pods.
 *
 * <p>Where the bounds go ({@link KnativeScaling}): on the Revision itself for Knative Serving 1.21 and later,
 * which copies a Revision's autoscaling annotations to its PodAutoscaler and keeps them out of the pod template;
 * on the Revision's PodAutoscaler for 1.0 to 1.20, whose Revision reconciler leaves a PodAutoscaler's annotations
 * alone. Either way the KPA then holds the Revision's Deployment at exactly that size, whatever traffic Knative
 * sees (the workers' RSocket streams bypass it). {@code docs/knative.md} has the research behind this.
 *
 * <p>The Revision is the Service's {@code latestReadyRevisionName} (the one Knative routes to), or its
 * {@code latestCreatedRevisionName} before any is ready, or before Knative reports either its newest Revision by
 * label. {@link #replicas} reads what Knative reports on that
 * Revision: {@code status.actualReplicas} (ready pods) and {@code status.desiredReplicas} (pods the autoscaler
 * asked for), and the bound last set as the target.
 *
 * <p>Thread-safe: it keeps no state beyond the client, and every call reads the cluster afresh.
 */
public final class KnativeScalingConnector implements ScalingConnector {

    /** The label Knative puts on a Revision naming its Service. */
    static final String SERVICE_LABEL = "serving.knative.dev/service";
    /** The label Knative puts on a Revision with the configuration generation it was made from. */
    static final String GENERATION_LABEL = "serving.knative.dev/configurationGeneration";

    private final KubernetesClient client;
    private final String namespace;
    private final KnativeScaling mechanism;
    private final Map<Pool, String> services = new EnumMap<>(Pool.class);
    private final Map<Pool, ReplicaBounds> bounds = new EnumMap<>(Pool.class);
    private final boolean ownsClient;

    /**
     * A connector for the pools of {@code graph} through {@code client}.
     *
     * @param ownsClient whether {@link #close()} closes the client
     */
    public KnativeScalingConnector(Graph graph, KubernetesClient client, boolean ownsClient) {
        Objects.requireNonNull(graph, "graph");
        this.client = Objects.requireNonNull(client, "client");
        this.namespace = graph.namespace();
        this.mechanism = graph.platform().scaling();
        this.ownsClient = ownsClient;
        graph.stages().workers().forEach((pool, worker) -> {
            services.put(pool, Names.service(graph, Stage.of(pool)));
            bounds.put(pool, worker.replicas());
        });
    }

    /**
     * A connector for {@code graph} through the current kube context: in a pod, its ServiceAccount (the planner's,
     * with the rights {@code squall deploy knative} grants it); elsewhere {@code KUBECONFIG} or
     * {@code ~/.kube/config}. {@link #close()} closes the client.
     */
    public static KnativeScalingConnector fromCurrentContext(Graph graph) {
        return new KnativeScalingConnector(graph, new KubernetesClientBuilder().build(), true);
    }

    @Override
    public String name() {
        return "knative";
    }

    @Override
    public Replicas replicas(Pool pool) {
        String serviceName = service(pool);
        try {
            Service service = knativeService(serviceName);
            String revisionName = revisionOf(service);
            if (revisionName == null) {
                return new Replicas(scaleBound(service.getSpec().getTemplate().getMetadata().getAnnotations()), 0, 0);
            }
            Revision revision = client.resources(Revision.class).inNamespace(namespace).withName(revisionName).get();
            if (revision == null) {
                throw new ScalingException("revision " + revisionName + " of " + serviceName + " is gone");
            }
            int target = scaleBound(boundsHolder(revision).getMetadata().getAnnotations());
            var status = revision.getStatus();
            int ready = status == null || status.getActualReplicas() == null ? 0 : Math.max(0, status.getActualReplicas());
            int desired = status == null || status.getDesiredReplicas() == null ? 0 : Math.max(0, status.getDesiredReplicas());
            return new Replicas(target, Math.max(ready, desired), ready);
        } catch (KubernetesClientException e) {
            throw new ScalingException("cannot read the replicas of " + serviceName + ": " + e.getMessage(), e);
        }
    }

    /**
     * Pins the running Revision of {@code pool}'s Service at {@code replicas} pods.
     *
     * @throws IllegalArgumentException when the graph has no such pool or {@code replicas} is outside the pool's
     *                                  bounds in the graph (never below 1: Knative does not reliably wake a
     *                                  revision pinned at zero without a request through its route)
     */
    @Override
    public void scale(Pool pool, int replicas) {
        String serviceName = service(pool);
        ReplicaBounds limits = bounds.get(pool);
        if (replicas < limits.min() || replicas > limits.max()) {
            throw new IllegalArgumentException("the " + pool + " pool takes " + limits.min() + ".." + limits.max()
                    + " replicas (the graph's bounds), not " + replicas);
        }
        try {
            String revisionName = revisionOf(knativeService(serviceName));
            if (revisionName == null) {
                throw new ScalingException(serviceName + " has no revision yet");
            }
            String value = Integer.toString(replicas);
            String patch = "{\"metadata\":{\"annotations\":{\"" + KnativeKeys.MIN_SCALE + "\":\"" + value + "\",\""
                    + KnativeKeys.MAX_SCALE + "\":\"" + value + "\"}}}";
            HasMetadata patched = switch (mechanism) {
                case REVISION -> client.resources(Revision.class).inNamespace(namespace).withName(revisionName)
                        .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
                // a Revision's PodAutoscaler bears the Revision's name
                case POD_AUTOSCALER -> client.resources(PodAutoscaler.class).inNamespace(namespace).withName(revisionName)
                        .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
            };
            if (patched == null) {
                throw new ScalingException("the " + mechanism.yamlName() + " of " + revisionName + " is gone");
            }
        } catch (KubernetesClientException e) {
            throw new ScalingException("cannot scale " + serviceName + " to " + replicas + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        if (ownsClient) {
            client.close();
        }
    }

    private String service(Pool pool) {
        Objects.requireNonNull(pool, "pool");
        String name = services.get(pool);
        if (name == null) {
            throw new IllegalArgumentException("the graph has no " + pool + " pool; it has " + services.keySet());
        }
        return name;
    }

    private Service knativeService(String name) {
        Service service = client.resources(Service.class).inNamespace(namespace).withName(name).get();
        if (service == null) {
            throw new ScalingException("Knative Service " + namespace + "/" + name + " not found: deploy the graph first");
        }
        return service;
    }

    /**
     * The Service's running Revision: {@code status.latestReadyRevisionName}, else
     * {@code latestCreatedRevisionName}, else (a Service Knative has not reported on yet) its newest Revision by
     * the labels Knative puts on every Revision; {@code null} when it has none.
     */
    private String revisionOf(Service service) {
        var status = service.getStatus();
        if (status != null && status.getLatestReadyRevisionName() != null) {
            return status.getLatestReadyRevisionName();
        }
        if (status != null && status.getLatestCreatedRevisionName() != null) {
            return status.getLatestCreatedRevisionName();
        }
        return client.resources(Revision.class).inNamespace(namespace)
                .withLabel(SERVICE_LABEL, service.getMetadata().getName()).list().getItems().stream()
                .max(Comparator.comparingLong(KnativeScalingConnector::generation)
                        .thenComparing(r -> r.getMetadata().getName()))
                .map(r -> r.getMetadata().getName())
                .orElse(null);
    }

    /** The configuration generation Knative labels a Revision with (the template's version it was made from). */
    private static long generation(Revision revision) {
        String value = revision.getMetadata().getLabels() == null ? null
                : revision.getMetadata().getLabels().get(GENERATION_LABEL);
        return value != null && value.matches("\\d{1,18}") ? Long.parseLong(value) : -1;
    }

    /** The object whose annotations hold the bounds: the Revision, or its PodAutoscaler. */
    private HasMetadata boundsHolder(Revision revision) {
        if (mechanism == KnativeScaling.REVISION) {
            return revision;
        }
        PodAutoscaler autoscaler = client.resources(PodAutoscaler.class).inNamespace(namespace)
                .withName(revision.getMetadata().getName()).get();
        return autoscaler != null ? autoscaler : revision;
    }

    /** The pinned scale: min-scale (which the connector keeps equal to max-scale), 0 when absent or unreadable. */
    private static int scaleBound(Map<String, String> annotations) {
        String value = annotations == null ? null : annotations.get(KnativeKeys.MIN_SCALE);
        if (value == null || !value.matches("\\d{1,9}")) {
            return 0;
        }
        return Integer.parseInt(value);
    }
}

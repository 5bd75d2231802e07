package io.squall.knative.manifest;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.squall.knative.graph.Graph;
import io.squall.knative.graph.Quantities;
import io.squall.knative.graph.Stages.StageRuntime;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one container of a stage's pod: the {@code squall} image run with the stage's arguments, on one HTTP port
 * ({@value #HTTP_PORT}, Knative's {@code PORT}) that serves the OpenAI API or the stage's RSocket over WebSocket
 * at {@code /rsocket}, {@code /healthz}, {@code /readyz} and {@code /metrics}; and the volumes it mounts.
 *
 * <p>Knative's rules the container keeps (checked by {@code KnativeAdmissionTest}): one port, named
 * {@code http1} (RSocket over WebSocket is an HTTP/1.1 upgrade) and none of the ports Knative reserves (8012,
 * 8013, 8022, 8112, 9090, 9091); probes without a port of their own, so they go to the serving port; no
 * {@code PORT}, {@code K_SERVICE}, {@code K_CONFIGURATION} or {@code K_REVISION} in the environment; only the
 * volume types Knative allows without feature flags (emptyDir, configMap, secret, the latter two read-only).
 */
final class StageContainers {

    /** The serving port: Knative's {@code PORT}, the one port of every stage. */
    static final int HTTP_PORT = 8080;
    /** The name of the serving port: HTTP/1.1, which WebSocket upgrades ride on. */
    static final String PORT_NAME = "http1";
    /** The model cache of a pod that downloads its model, an emptyDir ({@code SQUALL_MODELS_DIR}). */
    static final String CACHE_DIR = "/var/cache/squall/models";
    /** The G3 KV tier of a worker, an emptyDir. */
    static final String KV_DISK_DIR = "/var/lib/squall/kv";
    /** Where the graph ConfigMap is mounted. */
    static final String GRAPH_DIR = "/etc/squall/graph";
    /** The variable each stage reads the cluster secret from. */
    static final String CLUSTER_SECRET_ENV = "SQUALL_CLUSTER_SECRET";
    /** Where the API keys Secret is mounted. */
    static final String API_KEYS_DIR = "/etc/squall/api-keys";

    private static final String CONTAINER_NAME = "squall";
    private static final int PROBE_PERIOD_SECONDS = 5;

    private StageContainers() {
    }

    /** A stage's container and the volumes of its pod, in mount order. */
    record Pod(Container container, List<Volume> volumes) {
    }

    /** What a stage needs mounted. */
    record Mounts(boolean cache, long cacheBytes, long kvDiskBytes, boolean graph, String apiKeysSecret) {

        static Mounts none() {
            return new Mounts(false, 0, 0, false, null);
        }
    }

    /**
     * The pod of a stage.
     *
     * @param args the {@code squall} command line after the executable (the image's entry point is {@code squall})
     * @param systemProperties JVM system properties set for the stage, in order, before the graph's JVM options
     */
    static Pod pod(Graph graph, StageRuntime runtime, List<String> args, Map<String, String> systemProperties, Mounts mounts) {
        List<Volume> volumes = new ArrayList<>();
        List<VolumeMount> volumeMounts = new ArrayList<>();
        List<String> jvm = new ArrayList<>();
        systemProperties.forEach((key, value) -> jvm.add("-D" + key + "=" + value));
        if (mounts.cache()) {
            volumes.add(emptyDir("cache", mounts.cacheBytes()));
            volumeMounts.add(mount("cache", CACHE_DIR, false));
        }
        if (mounts.kvDiskBytes() > 0) {
            // the tier fills to its capacity; the volume leaves a tenth more (at least 64Mi) for the files' own overhead
            long bytes = mounts.kvDiskBytes() + Math.max(mounts.kvDiskBytes() / 10, 64L << 20);
            volumes.add(emptyDir("kv-disk", (bytes + (1L << 20) - 1) & -(1L << 20)));
            volumeMounts.add(mount("kv-disk", KV_DISK_DIR, false));
        }
        if (mounts.graph()) {
            volumes.add(new VolumeBuilder().withName("graph")
                    .withNewConfigMap().withName(Names.graphConfigMap(graph)).endConfigMap().build());
            volumeMounts.add(mount("graph", GRAPH_DIR, true));
        }
        if (mounts.apiKeysSecret() != null) {
            volumes.add(new VolumeBuilder().withName("api-keys")
                    .withNewSecret().withSecretName(mounts.apiKeysSecret()).endSecret().build());
            volumeMounts.add(mount("api-keys", API_KEYS_DIR, true));
        }
        jvm.addAll(runtime.jvmOptions());
        List<EnvVar> env = new ArrayList<>();
        if (!jvm.isEmpty()) {
            // read by every JVM whatever the entry point; the image's own flags come after and the user's -X options win
            env.add(new EnvVar("JAVA_TOOL_OPTIONS", String.join(" ", jvm), null));
        }
        if (graph.platform().clusterSecret() != null) {
            // the secret that closes the cluster, read by every stage (ClusterSecretOption); from the environment, not
            // the command line, so it never shows in the pod spec's args or a process list
            env.add(new EnvVarBuilder().withName(CLUSTER_SECRET_ENV).withNewValueFrom().withNewSecretKeyRef()
                    .withName(graph.platform().clusterSecret()).withKey(Graph.Platform.CLUSTER_SECRET_KEY)
                    .endSecretKeyRef().endValueFrom().build());
        }
        if (mounts.cache()) {
            // where `--model hf:…` and `--model https://…` download to and find the model again after a restart
            env.add(new EnvVar("SQUALL_MODELS_DIR", CACHE_DIR, null));
        }
        Container container = new ContainerBuilder()
                .withName(CONTAINER_NAME)
                .withImage(graph.platform().image())
                .withArgs(args)
                .withEnv(env)
                .addNewPort().withName(PORT_NAME).withContainerPort(HTTP_PORT).withProtocol("TCP").endPort()
                .withResources(new ResourceRequirementsBuilder()
                        .withRequests(quantities(runtime.resources().requests()))
                        .withLimits(quantities(runtime.resources().limits()))
                        .build())
                .withStartupProbe(probe("/healthz", PROBE_PERIOD_SECONDS,
                        Math.max(1, (runtime.startupSeconds() + PROBE_PERIOD_SECONDS - 1) / PROBE_PERIOD_SECONDS), 2))
                .withLivenessProbe(probe("/healthz", 10, 6, 5))
                .withReadinessProbe(probe("/readyz", PROBE_PERIOD_SECONDS, 3, 2))
                .withVolumeMounts(volumeMounts)
                .withNewSecurityContext()
                    .withRunAsNonRoot(true)
                    .withAllowPrivilegeEscalation(false)
                    .withNewCapabilities().withDrop("ALL").endCapabilities()
                    .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
                .endSecurityContext()
                .build();
        return new Pod(container, volumes);
    }

    /** An HTTP probe of the serving port: no port of its own, as Knative requires of the user container. */
    private static Probe probe(String path, int periodSeconds, int failureThreshold, int timeoutSeconds) {
        return new ProbeBuilder()
                .withNewHttpGet().withPath(path).endHttpGet()
                .withPeriodSeconds(periodSeconds)
                .withFailureThreshold(failureThreshold)
                .withTimeoutSeconds(timeoutSeconds)
                .withSuccessThreshold(1)
                .build();
    }

    private static Volume emptyDir(String name, long bytes) {
        return new VolumeBuilder().withName(name)
                .withNewEmptyDir().withSizeLimit(new Quantity(Quantities.formatBytes(bytes))).endEmptyDir()
                .build();
    }

    private static VolumeMount mount(String name, String path, boolean readOnly) {
        return new VolumeMountBuilder().withName(name).withMountPath(path).withReadOnly(readOnly ? Boolean.TRUE : null).build();
    }

    private static Map<String, Quantity> quantities(Map<String, String> values) {
        Map<String, Quantity> quantities = new LinkedHashMap<>();
        values.forEach((name, value) -> quantities.put(name, new Quantity(value)));
        return quantities;
    }
}

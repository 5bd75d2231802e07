package io.squall.knative.manifest;

import io.fabric8.knative.serving.v1.RevisionSpec;
import io.fabric8.knative.serving.v1.Service;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Knative Serving's admission rules for a Service (its webhook's validation of {@code serving.knative.dev/v1}
 * with the default feature flags and {@code config-defaults}), as written in Knative's
 * {@code pkg/apis/serving/k8s_validation.go}, {@code fieldmask.go}, {@code metadata_validation.go} and
 * {@code pkg/apis/autoscaling/annotation_validation.go}. Returns the violations as {@code path: problem}.
 */
final class KnativeRules {

    static final Set<Integer> RESERVED_PORTS = Set.of(8012, 8013, 8022, 8112, 9090, 9091, 8008);
    static final Set<String> RESERVED_ENV = Set.of("PORT", "K_SERVICE", "K_CONFIGURATION", "K_REVISION");
    static final Set<String> RESERVED_PATHS = Set.of("/", "/dev", "/dev/log");
    static final Set<String> PORT_NAMES = Set.of("", "h2c", "http1");
    static final long MAX_TIMEOUT_SECONDS = 600;

    private KnativeRules() {
    }

    static List<String> violations(Service service) {
        List<String> errors = new ArrayList<>();
        service.getMetadata().getAnnotations().keySet().stream()
                .filter(k -> k.startsWith("autoscaling.knative.dev"))
                .forEach(k -> errors.add("metadata.annotations." + k + ": autoscaling annotations must be under spec.template.metadata.annotations"));
        var template = service.getSpec().getTemplate();
        errors.addAll(autoscaling(template.getMetadata().getAnnotations()));
        String deadline = template.getMetadata().getAnnotations().get("serving.knative.dev/progress-deadline");
        if (deadline != null && !deadline.matches("\\d+s")) {
            errors.add("progress-deadline: not a duration in seconds: " + deadline);
        }
        errors.addAll(podSpec(template.getSpec()));
        return errors;
    }

    private static List<String> podSpec(RevisionSpec spec) {
        List<String> errors = new ArrayList<>();
        // fields of PodSpec Knative allows only behind feature flags that are off by default, or never
        if (spec.getNodeSelector() != null && !spec.getNodeSelector().isEmpty()) errors.add("nodeSelector: disallowed");
        if (spec.getTolerations() != null && !spec.getTolerations().isEmpty()) errors.add("tolerations: disallowed");
        if (spec.getAffinity() != null) errors.add("affinity: disallowed");
        if (spec.getSecurityContext() != null) errors.add("securityContext: disallowed (pod level)");
        if (spec.getInitContainers() != null && !spec.getInitContainers().isEmpty()) errors.add("initContainers: disallowed");
        if (spec.getTerminationGracePeriodSeconds() != null) errors.add("terminationGracePeriodSeconds: disallowed");
        if (spec.getRuntimeClassName() != null) errors.add("runtimeClassName: disallowed");
        if (spec.getPriorityClassName() != null) errors.add("priorityClassName: disallowed");
        if (spec.getHostNetwork() != null || spec.getHostPID() != null || spec.getHostIPC() != null) errors.add("host*: disallowed");
        if (spec.getRestartPolicy() != null) errors.add("restartPolicy: disallowed");
        if (Boolean.TRUE.equals(spec.getAutomountServiceAccountToken())) errors.add("automountServiceAccountToken: only false is allowed");
        if (spec.getTimeoutSeconds() != null && (spec.getTimeoutSeconds() < 0 || spec.getTimeoutSeconds() > MAX_TIMEOUT_SECONDS)) {
            errors.add("timeoutSeconds: must be within 0.." + MAX_TIMEOUT_SECONDS);
        }
        List<Container> containers = spec.getContainers();
        if (containers == null || containers.isEmpty()) {
            errors.add("containers: missing");
            return errors;
        }
        Map<String, Volume> volumes = new java.util.HashMap<>();
        for (Volume volume : spec.getVolumes() == null ? List.<Volume>of() : spec.getVolumes()) {
            if (volume.getHostPath() != null || volume.getPersistentVolumeClaim() != null || volume.getCsi() != null
                    || volume.getEphemeral() != null || volume.getNfs() != null || volume.getDownwardAPI() != null) {
                errors.add("volumes." + volume.getName() + ": only emptyDir, configMap, secret and projected are allowed");
            }
            if (volume.getEmptyDir() != null && volume.getEmptyDir().getMedium() != null
                    && !volume.getEmptyDir().getMedium().isEmpty() && !"Memory".equals(volume.getEmptyDir().getMedium())) {
                errors.add("volumes." + volume.getName() + ".emptyDir.medium: invalid");
            }
            if (volumes.put(volume.getName(), volume) != null) errors.add("volumes." + volume.getName() + ": duplicate");
        }
        long serving = containers.stream().filter(c -> c.getPorts() != null && !c.getPorts().isEmpty()).count();
        if (containers.size() > 1 && serving != 1) errors.add("containers: exactly one container must name a port");
        Set<String> mounted = new HashSet<>();
        for (Container container : containers) {
            errors.addAll(container(container, volumes, mounted));
        }
        for (String volume : volumes.keySet()) {
            if (!mounted.contains(volume)) errors.add("volumes." + volume + ": not mounted by any container");
        }
        return errors;
    }

    private static List<String> container(Container c, Map<String, Volume> volumes, Set<String> mounted) {
        List<String> errors = new ArrayList<>();
        String at = "containers." + c.getName() + ".";
        if ("queue-proxy".equals(c.getName())) errors.add(at + "name: reserved");
        if (c.getImage() == null || c.getImage().isBlank()) errors.add(at + "image: missing");
        if (c.getLifecycle() != null) errors.add(at + "lifecycle: disallowed");
        if (Boolean.TRUE.equals(c.getStdin()) || Boolean.TRUE.equals(c.getTty())) errors.add(at + "stdin/tty: disallowed");
        if (c.getVolumeDevices() != null && !c.getVolumeDevices().isEmpty()) errors.add(at + "volumeDevices: disallowed");
        if (c.getResizePolicy() != null && !c.getResizePolicy().isEmpty()) errors.add(at + "resizePolicy: disallowed");
        List<ContainerPort> ports = c.getPorts() == null ? List.of() : c.getPorts();
        if (ports.size() > 1) errors.add(at + "ports: more than one port is not allowed");
        ContainerPort port = ports.isEmpty() ? null : ports.getFirst();
        if (port != null) {
            if (RESERVED_PORTS.contains(port.getContainerPort())) errors.add(at + "ports: " + port.getContainerPort() + " is a reserved port");
            if (!PORT_NAMES.contains(port.getName() == null ? "" : port.getName())) errors.add(at + "ports.name: must be empty, h2c or http1");
            if (port.getProtocol() != null && !"TCP".equals(port.getProtocol())) errors.add(at + "ports.protocol: only TCP");
            if (port.getHostPort() != null || port.getHostIP() != null) errors.add(at + "ports: hostPort/hostIP disallowed");
        }
        errors.addAll(probe(at + "livenessProbe", c.getLivenessProbe(), port, false));
        errors.addAll(probe(at + "readinessProbe", c.getReadinessProbe(), port, true));
        errors.addAll(probe(at + "startupProbe", c.getStartupProbe(), port, false));
        for (EnvVar env : c.getEnv() == null ? List.<EnvVar>of() : c.getEnv()) {
            if (RESERVED_ENV.contains(env.getName())) errors.add(at + "env." + env.getName() + ": reserved");
            if (env.getValueFrom() != null && env.getValueFrom().getFieldRef() != null) errors.add(at + "env." + env.getName() + ": fieldRef needs a feature flag");
        }
        var security = c.getSecurityContext();
        if (security != null) {
            if (security.getCapabilities() != null && security.getCapabilities().getAdd() != null
                    && !security.getCapabilities().getAdd().isEmpty()) errors.add(at + "capabilities.add: disallowed");
            if (Boolean.TRUE.equals(security.getPrivileged())) errors.add(at + "privileged: only false is allowed");
            if (security.getSeLinuxOptions() != null || security.getProcMount() != null) errors.add(at + "seLinuxOptions/procMount: disallowed");
        }
        Set<String> paths = new HashSet<>();
        for (VolumeMount mount : c.getVolumeMounts() == null ? List.<VolumeMount>of() : c.getVolumeMounts()) {
            Volume volume = volumes.get(mount.getName());
            String path = mount.getMountPath() == null ? "" : Path.of(mount.getMountPath()).normalize().toString();
            if (volume == null) errors.add(at + "volumeMounts." + mount.getName() + ": no matching volume");
            if (RESERVED_PATHS.contains(path)) errors.add(at + "volumeMounts." + mount.getName() + ": reserved path " + path);
            if (!path.startsWith("/")) errors.add(at + "volumeMounts." + mount.getName() + ": not absolute");
            if (!paths.add(path)) errors.add(at + "volumeMounts." + mount.getName() + ": mountPath not unique");
            boolean writable = volume != null && (volume.getEmptyDir() != null || volume.getPersistentVolumeClaim() != null);
            if (volume != null && !writable && !Boolean.TRUE.equals(mount.getReadOnly())) {
                errors.add(at + "volumeMounts." + mount.getName() + ": must be readOnly for this type of volume");
            }
            if (mount.getMountPropagation() != null) errors.add(at + "volumeMounts." + mount.getName() + ": mountPropagation disallowed");
            mounted.add(mount.getName());
        }
        return errors;
    }

    private static List<String> probe(String at, Probe probe, ContainerPort port, boolean readiness) {
        List<String> errors = new ArrayList<>();
        if (probe == null) {
            return errors;
        }
        int handlers = (probe.getHttpGet() != null ? 1 : 0) + (probe.getTcpSocket() != null ? 1 : 0)
                + (probe.getExec() != null ? 1 : 0) + (probe.getGrpc() != null ? 1 : 0);
        if (handlers != 1) errors.add(at + ": exactly one of httpGet, tcpSocket, exec, grpc");
        IntOrString probePort = probe.getHttpGet() != null ? probe.getHttpGet().getPort()
                : probe.getTcpSocket() != null ? probe.getTcpSocket().getPort() : null;
        if (probePort != null) {
            boolean sameName = probePort.getStrVal() != null && port != null && probePort.getStrVal().equals(port.getName());
            boolean samePort = probePort.getIntVal() != null && port != null && probePort.getIntVal().equals(port.getContainerPort());
            if (!sameName && !samePort) errors.add(at + ": probe port must match the container port");
        }
        if (readiness) {
            int period = probe.getPeriodSeconds() == null ? 0 : probe.getPeriodSeconds();
            if (probe.getSuccessThreshold() != null && probe.getSuccessThreshold() < 1) errors.add(at + ".successThreshold: >= 1");
            if (period == 0 && (probe.getFailureThreshold() != null || probe.getTimeoutSeconds() != null)) {
                errors.add(at + ": failureThreshold/timeoutSeconds are disallowed when periodSeconds is zero");
            }
            if (period > 0 && (probe.getTimeoutSeconds() == null || probe.getTimeoutSeconds() < 1
                    || probe.getFailureThreshold() == null || probe.getFailureThreshold() < 1)) {
                errors.add(at + ": timeoutSeconds and failureThreshold must be >= 1");
            }
        }
        return errors;
    }

    private static List<String> autoscaling(Map<String, String> annotations) {
        List<String> errors = new ArrayList<>();
        String cls = annotations.get("autoscaling.knative.dev/class");
        if (cls != null && cls.endsWith("autoscaling.knative.dev") && !cls.equals("kpa.autoscaling.knative.dev")
                && !cls.equals("hpa.autoscaling.knative.dev")) errors.add("class: unknown " + cls);
        Integer min = nonNegative(annotations, "autoscaling.knative.dev/min-scale", errors);
        Integer max = nonNegative(annotations, "autoscaling.knative.dev/max-scale", errors);
        Integer initial = nonNegative(annotations, "autoscaling.knative.dev/initial-scale", errors);
        if (min != null && max != null && max != 0 && max < min) errors.add("max-scale: less than min-scale");
        if (initial != null && initial == 0) errors.add("initial-scale: 0 needs allow-zero-initial-scale");
        String metric = annotations.get("autoscaling.knative.dev/metric");
        if (metric != null && "kpa.autoscaling.knative.dev".equals(cls) && !Set.of("concurrency", "rps").contains(metric)) {
            errors.add("metric: the KPA scales on concurrency or rps");
        }
        String target = annotations.get("autoscaling.knative.dev/target");
        if (target != null && !(Double.parseDouble(target) >= 0.01)) errors.add("target: at least 0.01");
        String window = annotations.get("autoscaling.knative.dev/window");
        if (window != null) {
            Duration d = Duration.parse("PT" + window.toUpperCase());
            if (d.compareTo(Duration.ofSeconds(6)) < 0 || d.compareTo(Duration.ofHours(1)) > 0) errors.add("window: out of 6s..1h");
        }
        return errors;
    }

    private static Integer nonNegative(Map<String, String> annotations, String key, List<String> errors) {
        String value = annotations.get(key);
        if (value == null) {
            return null;
        }
        if (!value.matches("\\d+")) {
            errors.add(key + ": not a whole number >= 0");
            return null;
        }
        return Integer.parseInt(value);
    }
}

package io.squall.knative.manifest;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeerBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPortBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.squall.knative.graph.Graph;
import io.squall.knative.graph.KnativeScaling;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The plain Kubernetes objects around the Knative Services: the planner's identity and rights, the graph as a
 * ConfigMap, the headless Service Hazelcast finds its members by, and the network policies.
 */
final class ClusterObjects {

    /** Knative's queue-proxy: requests (HTTP/1 and h2c) and the autoscaler's metrics scrape. */
    private static final List<Integer> QUEUE_PROXY_PORTS = List.of(8012, 8013, 9090);

    private ClusterObjects() {
    }

    static ServiceAccount plannerAccount(Graph graph) {
        return new ServiceAccountBuilder().withMetadata(meta(graph, Names.planner(graph), Names.graphLabels(graph))).build();
    }

    /**
     * The planner's rights, exactly what {@code KnativeScalingConnector} does: read its pools' Knative Services
     * (named, so no other Service is visible), read, list (to find a Service's newest before Knative reports it)
     * and annotate their Revisions (the scale bounds), and with
     * the {@code pod-autoscaler} mechanism read and annotate the Revisions' PodAutoscalers instead.
     */
    static Role plannerRole(Graph graph) {
        List<String> services = graph.stages().workers().keySet().stream()
                .map(pool -> Names.service(graph, Stage.of(pool)))
                .toList();
        List<PolicyRule> rules = new ArrayList<>();
        rules.add(new PolicyRuleBuilder().withApiGroups("serving.knative.dev").withResources("services")
                .withResourceNames(services).withVerbs("get").build());
        boolean onRevision = graph.platform().scaling() == KnativeScaling.REVISION;
        rules.add(new PolicyRuleBuilder().withApiGroups("serving.knative.dev").withResources("revisions")
                .withVerbs(onRevision ? List.of("get", "list", "patch") : List.of("get", "list")).build());
        if (!onRevision) {
            rules.add(new PolicyRuleBuilder().withApiGroups("autoscaling.internal.knative.dev")
                    .withResources("podautoscalers").withVerbs("get", "patch").build());
        }
        return new RoleBuilder().withMetadata(meta(graph, Names.planner(graph), Names.graphLabels(graph)))
                .withRules(rules).build();
    }

    static RoleBinding plannerBinding(Graph graph) {
        return new RoleBindingBuilder().withMetadata(meta(graph, Names.planner(graph), Names.graphLabels(graph)))
                .withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("Role").withName(Names.planner(graph)).endRoleRef()
                .addNewSubject().withKind("ServiceAccount").withName(Names.planner(graph)).withNamespace(graph.namespace()).endSubject()
                .build();
    }

    /** The graph (canonical YAML) and any files it refers to, keyed by file name. */
    static ConfigMap graphConfigMap(Graph graph, Map<String, String> files) {
        return new ConfigMapBuilder().withMetadata(meta(graph, Names.graphConfigMap(graph), Names.graphLabels(graph)))
                .withData(files).build();
    }

    /**
     * The headless Service whose DNS name resolves to every pod of the graph, ready or not (members must find
     * each other before they serve): Hazelcast's Kubernetes discovery in DNS mode reads it.
     */
    static Service hazelcastService(Graph graph) {
        return new ServiceBuilder().withMetadata(meta(graph, Names.hazelcastService(graph), Names.graphLabels(graph)))
                .withNewSpec()
                    .withClusterIP("None")
                    .withPublishNotReadyAddresses(true)
                    .withSelector(Map.of(Names.GRAPH_LABEL, graph.name()))
                    .addNewPort().withName("hazelcast").withProtocol("TCP").withPort(StageCommands.GRID_PORT)
                        .withTargetPort(new IntOrString(StageCommands.GRID_PORT)).endPort()
                .endSpec()
                .build();
    }

    /**
     * Ingress rules for the graph's pods (egress is left open: the planner calls the Kubernetes API, stages
     * may download models). Policies add up, so a pod admits what any of these admits:
     * <ul>
     *   <li>{@code GRAPH-internal}: the graph's own pods reach every pod's serving port, the workers' RSocket
     *       TCP port and the Hazelcast port; nothing else does;</li>
     *   <li>{@code GRAPH-gateway}: anyone reaches the gateway's serving port and its queue-proxy (clients come
     *       through Knative's ingress and activator);</li>
     *   <li>{@code GRAPH-knative}: Knative's own namespaces reach the queue-proxy of every pod (the activator's
     *       requests, the autoscaler's metrics scrape);</li>
     *   <li>{@code GRAPH-metrics}: the Prometheus namespaces reach the serving port, where {@code /metrics} is.</li>
     * </ul>
     */
    static List<NetworkPolicy> networkPolicies(Graph graph) {
        LabelSelector graphPods = new LabelSelectorBuilder().withMatchLabels(Map.of(Names.GRAPH_LABEL, graph.name())).build();
        List<NetworkPolicy> policies = new ArrayList<>();
        List<Integer> internalPorts = new ArrayList<>(List.of(StageContainers.HTTP_PORT, StageCommands.GATEWAY_RSOCKET_PORT,
                StageCommands.WORKER_RSOCKET_PORT, StageCommands.GRID_PORT));
        policies.add(policy(graph, "internal", graphPods,
                List.of(new NetworkPolicyPeerBuilder().withPodSelector(graphPods).build()), internalPorts));
        LabelSelector gatewayPods = new LabelSelectorBuilder()
                .withMatchLabels(new TreeMap<>(Map.of(Names.GRAPH_LABEL, graph.name(), Names.STAGE_LABEL, Stage.GATEWAY.id())))
                .build();
        List<Integer> gatewayPorts = new ArrayList<>(List.of(StageContainers.HTTP_PORT));
        gatewayPorts.addAll(QUEUE_PROXY_PORTS.subList(0, 2));
        policies.add(policy(graph, "gateway", gatewayPods, List.of(), gatewayPorts));
        if (!graph.platform().systemNamespaces().isEmpty()) {
            policies.add(policy(graph, "knative", graphPods, namespaces(graph.platform().systemNamespaces()), QUEUE_PROXY_PORTS));
        }
        if (!graph.platform().prometheusNamespaces().isEmpty()) {
            policies.add(policy(graph, "metrics", graphPods, namespaces(graph.platform().prometheusNamespaces()),
                    List.of(StageContainers.HTTP_PORT)));
        }
        return policies;
    }

    /** A policy admitting {@code from} (anyone when empty) to {@code ports} of the pods {@code pods} selects. */
    private static NetworkPolicy policy(Graph graph, String suffix, LabelSelector pods, List<NetworkPolicyPeer> from,
                                        List<Integer> ports) {
        List<NetworkPolicyPort> policyPorts = ports.stream()
                .map(port -> new NetworkPolicyPortBuilder().withProtocol("TCP").withPort(new IntOrString(port)).build())
                .toList();
        return new NetworkPolicyBuilder().withMetadata(meta(graph, graph.name() + "-" + suffix, Names.graphLabels(graph)))
                .withNewSpec()
                    .withPodSelector(pods)
                    .withPolicyTypes("Ingress")
                    .addNewIngress().withFrom(from.isEmpty() ? null : from).withPorts(policyPorts).endIngress()
                .endSpec()
                .build();
    }

    /** Peers: every pod of the named namespaces (by the label Kubernetes puts on each namespace). */
    private static List<NetworkPolicyPeer> namespaces(List<String> names) {
        return names.stream().map(name -> new NetworkPolicyPeerBuilder()
                .withNewNamespaceSelector().withMatchLabels(Map.of("kubernetes.io/metadata.name", name)).endNamespaceSelector()
                .build()).toList();
    }

    private static ObjectMeta meta(Graph graph, String name, Map<String, String> labels) {
        return new ObjectMetaBuilder().withName(name).withNamespace(graph.namespace()).withLabels(labels).build();
    }
}

package io.squall.kvgrid.grid;

import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Joining a cluster through Kubernetes: the members are the pods behind a headless Service, found by a DNS
 * lookup of the Service's name (Hazelcast's Kubernetes discovery in DNS mode, which needs no Kubernetes API
 * rights). Written {@code k8s:SERVICE.NAMESPACE[:PORT]}, or {@code k8s:FQDN[:PORT]} with a full
 * {@code SERVICE.NAMESPACE.svc.DOMAIN} name when the cluster domain is not {@code cluster.local}.
 *
 * @param serviceDns the headless Service's DNS name, e.g. {@code squall-hz.default.svc.cluster.local}
 * @param port the members' port behind it
 */
public record KubernetesJoin(String serviceDns, int port) {

    /** How a seed list asks for Kubernetes discovery. */
    public static final String PREFIX = "k8s:";
    /** Hazelcast's default member port, used when the seed gives none. */
    public static final int DEFAULT_PORT = 5701;

    private static final Pattern FORM = Pattern.compile(
            "k8s:([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+)(:(\\d{1,5}))?");

    public KubernetesJoin {
        Objects.requireNonNull(serviceDns, "serviceDns");
        if (port < 1 || port > 65_535) {
            throw new IllegalArgumentException("port must be within 1..65535");
        }
    }

    /** Whether {@code seeds} asks for Kubernetes discovery: exactly one seed, starting with {@value #PREFIX}. */
    public static boolean requested(List<String> seeds) {
        return seeds.size() == 1 && seeds.getFirst().startsWith(PREFIX);
    }

    /**
     * Reads {@code k8s:SERVICE.NAMESPACE[:PORT]} ({@code .svc.cluster.local} is appended) or
     * {@code k8s:SERVICE.NAMESPACE.svc.DOMAIN[:PORT]} (used as written).
     *
     * @throws IllegalArgumentException with the expected form when {@code seed} is not one
     */
    public static KubernetesJoin parse(String seed) {
        Matcher m = FORM.matcher(seed);
        if (!m.matches()) {
            throw new IllegalArgumentException("a Kubernetes join is k8s:SERVICE.NAMESPACE[:PORT] (a headless Service "
                    + "selecting the cluster's pods), got " + seed);
        }
        String name = m.group(1);
        String dns = name.contains(".svc.") ? name : name + ".svc.cluster.local";
        int port = m.group(6) == null ? DEFAULT_PORT : Integer.parseInt(m.group(6));
        if (port < 1 || port > 65_535) {
            throw new IllegalArgumentException("the port of " + seed + " must be within 1..65535");
        }
        return new KubernetesJoin(dns, port);
    }
}

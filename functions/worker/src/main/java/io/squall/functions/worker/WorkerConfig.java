package io.squall.functions.worker;


import io.squall.functions.api.auth.ClusterSecret;
import io.squall.functions.discovery.WorkerRole;
import io.squall.functions.engine.batch.BatchConfig;
import io.squall.functions.worker.disagg.DisaggregationConfig;
import io.squall.functions.worker.kv.KvConfig;

import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.Comparator;
import java.util.Objects;
import java.util.Optional;

/**
 * How to run one worker stage.
 *
 * @param role its role in the graph
 * @param host the address both servers bind and that discovery advertises, e.g. {@code 127.0.0.1}; {@code 0.0.0.0}
 *             binds every interface and advertises {@link #advertisedHost()}
 * @param httpPort the HTTP port ({@code /healthz}, {@code /readyz}, {@code /metrics}, {@code /rsocket}); 0 picks a free one
 * @param rsocketPort the RSocket-over-TCP port; 0 picks a free one
 * @param namespace the discovery namespace
 * @param batch the continuous-batching limits
 * @param kv the sizes of the KV tiers
 * @param maxPositions the longest sequence served, in tokens (capped by the model's context)
 * @param disaggregation when a decode worker hands prompts to prefill workers (ignored by other roles)
 * @param clusterSecret what peers must prove in their RSocket SETUP, and what this worker proves to other workers;
 *                      {@link ClusterSecret#open()} accepts every peer
 * @param servedModelName the model id this worker advertises and clients send, or {@code null} for the
 *     engine's own {@link Engine#modelName()}
 * @param advertisedRsocket the RSocket TCP address discovery advertises when peers reach the worker through
 *     another one than it binds (a proxy, a NAT, a port forward), or {@code null} for the bound address
 */
public record WorkerConfig(WorkerRole role, String host, int httpPort, int rsocketPort, String namespace,
                           BatchConfig batch, KvConfig kv, int maxPositions, DisaggregationConfig disaggregation,
                           ClusterSecret clusterSecret, String servedModelName, Address advertisedRsocket) {

    /** A {@code host:port} other stages connect to. */
    public record Address(String host, int port) {
        public Address {
            Objects.requireNonNull(host, "host");
            if (host.isBlank() || port < 1 || port > 65_535) {
                throw new IllegalArgumentException("an advertised address needs a host and a port within 1..65535");
            }
        }

        /** Reads {@code host:port}. */
        public static Address parse(String text) {
            int colon = text.lastIndexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("expected host:port, got '" + text + "'");
            }
            try {
                return new Address(text.substring(0, colon), Integer.parseInt(text.substring(colon + 1)));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("expected host:port, got '" + text + "'");
            }
        }

        @Override
        public String toString() {
            return host + ":" + port;
        }
    }

    public WorkerConfig {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(batch, "batch");
        Objects.requireNonNull(kv, "kv");
        Objects.requireNonNull(disaggregation, "disaggregation");
        Objects.requireNonNull(clusterSecret, "clusterSecret");
        port("httpPort", httpPort);
        port("rsocketPort", rsocketPort);
        if (maxPositions < 2) {
            throw new IllegalArgumentException("maxPositions must be at least 2");
        }
    }

    /**
     * A worker on loopback with free ports, the given batching and G1 pages, 4,096 positions, the default
     * disaggregation settings, no cluster secret and the engine's model name.
     */
    public static WorkerConfig loopback(WorkerRole role, BatchConfig batch, KvConfig kv) {
        return new WorkerConfig(role, "127.0.0.1", 0, 0, "squall", batch, kv, 4096, DisaggregationConfig.defaults(),
                ClusterSecret.open(), null, null);
    }

    /**
     * The address discovery advertises: {@link #host()}, or for the wildcard {@code 0.0.0.0} this machine's
     * first non-loopback IPv4 address of an interface that is up (a pod's own address in Kubernetes), or the
     * local host's address when there is none.
     */
    public String advertisedHost() {
        if (!"0.0.0.0".equals(host)) {
            return host;
        }
        try {
            Optional<String> address = NetworkInterface.networkInterfaces()
                    .filter(WorkerConfig::usable)
                    .sorted(Comparator.comparingInt(NetworkInterface::getIndex))
                    .flatMap(NetworkInterface::inetAddresses)
                    .filter(a -> a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress())
                    .map(InetAddress::getHostAddress)
                    .findFirst();
            return address.isPresent() ? address.get() : InetAddress.getLocalHost().getHostAddress();
        } catch (SocketException | UnknownHostException e) {
            throw new UncheckedIOException("cannot find an address to advertise for host 0.0.0.0", e);
        }
    }

    private static boolean usable(NetworkInterface network) {
        try {
            return network.isUp() && !network.isLoopback();
        } catch (SocketException e) {
            return false;
        }
    }

    /** This configuration with other disaggregation settings. */
    public WorkerConfig withDisaggregation(DisaggregationConfig settings) {
        return new WorkerConfig(role, host, httpPort, rsocketPort, namespace, batch, kv, maxPositions, settings,
                clusterSecret, servedModelName, advertisedRsocket);
    }

    /** This configuration with another cluster secret. */
    public WorkerConfig withClusterSecret(ClusterSecret secret) {
        return new WorkerConfig(role, host, httpPort, rsocketPort, namespace, batch, kv, maxPositions, disaggregation,
                secret, servedModelName, advertisedRsocket);
    }

    /** This configuration advertising the model as {@code name}. */
    public WorkerConfig withServedModelName(String name) {
        return new WorkerConfig(role, host, httpPort, rsocketPort, namespace, batch, kv, maxPositions, disaggregation,
                clusterSecret, Objects.requireNonNull(name, "name"), advertisedRsocket);
    }

    /** This configuration with other KV tiers. */
    public WorkerConfig withKv(KvConfig tiers) {
        return new WorkerConfig(role, host, httpPort, rsocketPort, namespace, batch, Objects.requireNonNull(tiers, "tiers"),
                maxPositions, disaggregation, clusterSecret, servedModelName, advertisedRsocket);
    }

    /** This configuration running sequences of at most {@code positions} tokens. */
    public WorkerConfig withMaxPositions(int positions) {
        return new WorkerConfig(role, host, httpPort, rsocketPort, namespace, batch, kv, positions, disaggregation,
                clusterSecret, servedModelName, advertisedRsocket);
    }

    /** This configuration advertising {@code address} for RSocket over TCP instead of the bound host and port. */
    public WorkerConfig withAdvertisedRsocket(Address address) {
        return new WorkerConfig(role, host, httpPort, rsocketPort, namespace, batch, kv, maxPositions, disaggregation,
                clusterSecret, servedModelName, Objects.requireNonNull(address, "address"));
    }

    private static void port(String name, int port) {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException(name + " must be within 0..65535");
        }
    }
}

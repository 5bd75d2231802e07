package io.squall.functions.worker.rsocket;

import io.rsocket.RSocket;
import io.squall.functions.api.KvFetchService;
import io.squall.functions.api.KvPushService;
import io.squall.functions.api.PrefillService;
import io.squall.functions.api.auth.ClusterSecret;
import io.squall.functions.discovery.Discovery;
import io.squall.functions.discovery.InstanceId;
import io.squall.functions.discovery.WorkerInstance;
import io.squall.functions.api.rsocket.RSocketKvFetchClient;
import io.squall.functions.api.rsocket.RSocketKvPushClient;
import io.squall.functions.api.rsocket.RSocketPrefillClient;
import io.squall.functions.api.rsocket.StageConnections;
import io.squall.functions.worker.kv.KvPeers;
import io.squall.kvgrid.WorkerId;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link KvPeers} over RSocket: a worker is looked up in {@link Discovery} by its {@link WorkerId} or {@link InstanceId} and
 * reached over RSocket/TCP at its advertised address, proving the cluster's secret in the SETUP frame. One connection per peer is opened on first use
 * (blocking the caller up to {@code connectTimeout}), reused while it is open and replaced once it has
 * closed. Thread-safe; {@link #close()} disposes every connection and later lookups find no peer.
 */
public final class RSocketKvPeers implements KvPeers {

    private static final Logger LOG = LoggerFactory.getLogger(RSocketKvPeers.class);

    private final Discovery discovery;
    private final Duration connectTimeout;
    private final ClusterSecret secret;
    private final ConcurrentHashMap<InstanceId, RSocket> connections = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /**
     * @param connectTimeout longest wait for a connection to a peer, &gt; 0
     * @param secret what this worker proves to its peers ({@link ClusterSecret#open()} proves nothing)
     */
    public RSocketKvPeers(Discovery discovery, Duration connectTimeout, ClusterSecret secret) {
        this.discovery = Objects.requireNonNull(discovery, "discovery");
        this.secret = Objects.requireNonNull(secret, "secret");
        this.connectTimeout = Objects.requireNonNull(connectTimeout, "connectTimeout");
        if (connectTimeout.isNegative() || connectTimeout.isZero()) {
            throw new IllegalArgumentException("connectTimeout must be positive");
        }
    }

    @Override
    public Optional<KvFetchService> peer(WorkerId worker) {
        Objects.requireNonNull(worker, "worker");
        return connection(candidate -> candidate.id().workerId().equals(worker)).map(RSocketKvFetchClient::new);
    }

    @Override
    public Optional<PrefillService> prefillWorker(InstanceId worker) {
        Objects.requireNonNull(worker, "worker");
        return connection(candidate -> candidate.id().equals(worker)).map(RSocketPrefillClient::new);
    }

    @Override
    public Optional<KvPushService> decodeWorker(InstanceId worker) {
        Objects.requireNonNull(worker, "worker");
        return connection(candidate -> candidate.id().equals(worker)).map(RSocketKvPushClient::new);
    }

    /** The open connection to the first discovered instance {@code matching}, opened if needed. */
    private Optional<RSocket> connection(Predicate<WorkerInstance> matching) {
        Optional<WorkerInstance> instance = discovery.instances().stream().filter(matching).findFirst();
        if (closed || instance.isEmpty()) {
            return Optional.empty();
        }
        try {
            RSocket rsocket = connections.compute(instance.get().id(), (id, open) ->
                    open != null && !open.isDisposed() ? open : connect(instance.get()));
            if (closed) {
                rsocket.dispose(); // raced with close(): do not leak the new connection
                return Optional.empty();
            }
            return Optional.of(rsocket);
        } catch (RuntimeException e) {
            LOG.debug("connecting to peer {} failed: {}", instance.get().id(), e.toString());
            return Optional.empty();
        }
    }

    private RSocket connect(WorkerInstance instance) {
        return StageConnections.tcp(instance.host(), instance.rsocketPort(), secret).block(connectTimeout);
    }

    @Override
    public void close() {
        closed = true;
        connections.values().forEach(RSocket::dispose);
        connections.clear();
    }
}

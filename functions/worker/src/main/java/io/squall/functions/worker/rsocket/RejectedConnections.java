package io.squall.functions.worker.rsocket;

import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.Counter;
import io.squall.functions.api.auth.SetupVerifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Connections a stage refused at SETUP: counted in {@code squall_stage_rejected_connections_total{reason}} and
 * logged at WARN, at most once per reason every {@value #LOG_INTERVAL_SECONDS} seconds with the number refused
 * since (so a port scan or a peer with the wrong secret cannot flood the log). Thread-safe.
 */
public final class RejectedConnections implements Consumer<SetupVerifier.Rejection> {

    private static final Logger LOG = LoggerFactory.getLogger(RejectedConnections.class);
    static final long LOG_INTERVAL_SECONDS = 10;

    private final String stage;
    private final Counter counter;
    private final Map<SetupVerifier.Rejection, AtomicLong> lastLogged = new EnumMap<>(SetupVerifier.Rejection.class);
    private final Map<SetupVerifier.Rejection, AtomicLong> unlogged = new EnumMap<>(SetupVerifier.Rejection.class);

    /** @param stage names the stage in the log line */
    public RejectedConnections(String stage, CollectorRegistry registry) {
        this.stage = Objects.requireNonNull(stage, "stage");
        this.counter = Counter.build("squall_stage_rejected_connections_total",
                "RSocket connections refused at SETUP (missing or wrong cluster credentials), by reason.")
                .labelNames("reason").register(Objects.requireNonNull(registry, "registry"));
        for (SetupVerifier.Rejection reason : SetupVerifier.Rejection.values()) {
            counter.labels(reason.label());
            lastLogged.put(reason, new AtomicLong(System.nanoTime() - LOG_INTERVAL_SECONDS * 1_000_000_000L));
            unlogged.put(reason, new AtomicLong());
        }
    }

    @Override
    public void accept(SetupVerifier.Rejection reason) {
        counter.labels(reason.label()).inc();
        long since = unlogged.get(reason).incrementAndGet();
        AtomicLong last = lastLogged.get(reason);
        long now = System.nanoTime();
        long previous = last.get();
        if (now - previous >= LOG_INTERVAL_SECONDS * 1_000_000_000L && last.compareAndSet(previous, now)) {
            unlogged.get(reason).addAndGet(-since);
            LOG.warn("{} refused {} RSocket connection(s): {}", stage, since, reason.message());
        }
    }

    /** Refusals counted for {@code reason} so far. */
    public long count(SetupVerifier.Rejection reason) {
        return (long) counter.labels(reason.label()).get();
    }
}

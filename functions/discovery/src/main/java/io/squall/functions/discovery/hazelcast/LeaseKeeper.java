package io.squall.functions.discovery.hazelcast;

import com.hazelcast.core.HazelcastInstanceNotActiveException;
import com.hazelcast.map.IMap;
import io.squall.functions.discovery.InstanceId;
import io.squall.functions.discovery.LoadReport;
import io.squall.functions.discovery.Registration;
import io.squall.functions.discovery.WorkerInstance;

import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one registration alive: every load interval it samples the load and rewrites the entry when the
 * load changed (an update event for watchers); otherwise, once per heartbeat, it only extends the TTL
 * (no event). An entry found missing (TTL lapsed during a pause) is written again.
 *
 * <p>Runs on the discovery owner thread; {@link #close()} may be called from any thread.
 */
final class LeaseKeeper implements Registration {

    private static final Logger LOG = LoggerFactory.getLogger(LeaseKeeper.class);

    private final IMap<String, byte[]> map;
    private final UUID member;
    private final WorkerInstance instance;
    private final Supplier<LoadReport> load;
    private final DiscoveryConfig config;
    private final String key;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile ScheduledFuture<?> task;
    private LoadReport published;
    private long lastRenewalNanos;

    LeaseKeeper(IMap<String, byte[]> map, UUID member, WorkerInstance instance, Supplier<LoadReport> load,
                DiscoveryConfig config) {
        this.map = map;
        this.member = member;
        this.instance = instance;
        this.load = load;
        this.config = config;
        this.key = instance.id().toString();
    }

    @Override
    public InstanceId id() {
        return instance.id();
    }

    LoadReport sample() {
        return Objects.requireNonNull(load.get(), "load report");
    }

    void publish(LoadReport report) {
        map.put(key, new Lease(member, instance.withLoad(report)).encode(), config.leaseTtl().toMillis(),
                TimeUnit.MILLISECONDS);
        published = report;
        lastRenewalNanos = System.nanoTime();
    }

    void schedule(ScheduledExecutorService owner) {
        long period = config.loadInterval().toNanos();
        task = owner.scheduleAtFixedRate(this::tick, period, period, TimeUnit.NANOSECONDS);
    }

    private void tick() {
        if (closed.get()) {
            return;
        }
        try {
            LoadReport report = sample();
            if (!report.equals(published)) {
                publish(report);
            } else if (System.nanoTime() - lastRenewalNanos >= config.heartbeat().toNanos()) {
                if (!map.setTtl(key, config.leaseTtl().toMillis(), TimeUnit.MILLISECONDS)) {
                    publish(report);
                }
                lastRenewalNanos = System.nanoTime();
            }
        } catch (HazelcastInstanceNotActiveException e) {
            closed.set(true);
            task.cancel(false);
        } catch (RuntimeException e) {
            LOG.warn("renewing the lease of " + key + " failed; retrying", e);
        }
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        ScheduledFuture<?> t = task;
        if (t != null) {
            t.cancel(false);
        }
        try {
            map.remove(key);
        } catch (HazelcastInstanceNotActiveException e) {
            LOG.debug("member already shut down; its entries leave with it");
        }
    }
}

package io.squall.functions.discovery.hazelcast;

import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.EntryEvent;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceNotActiveException;
import com.hazelcast.map.IMap;
import com.hazelcast.map.listener.EntryAddedListener;
import com.hazelcast.map.listener.EntryEvictedListener;
import com.hazelcast.map.listener.EntryExpiredListener;
import com.hazelcast.map.listener.EntryRemovedListener;
import com.hazelcast.map.listener.EntryUpdatedListener;
import io.squall.functions.api.ErrorCode;
import io.squall.functions.api.StageException;
import io.squall.functions.discovery.Discovery;
import io.squall.functions.discovery.DiscoveryEvent;
import io.squall.functions.discovery.InstanceId;
import io.squall.functions.discovery.LoadReport;
import io.squall.functions.discovery.Registration;
import io.squall.functions.discovery.WorkerInstance;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Exceptions;
import reactor.core.publisher.BufferOverflowStrategy;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * {@link Discovery} over an embedded Hazelcast member. Registrations are entries of the
 * {@value #MAP_NAME} map (instance id → {@link Lease}) written with a TTL and renewed by heartbeat; an
 * entry leaves when its registration is closed, when its TTL lapses, or at once when the member that
 * holds it leaves the cluster (every member listens for membership loss and removes the lost member's
 * entries; the removals are idempotent).
 *
 * <p>A lapsed lease leaves the view only if it is not written again within one more lease time. The member
 * that owns a lease's partition decides when it lapses, by its own clock: a member that was stopped (a hung
 * process, {@code SIGSTOP}) and runs again lapses every lease it owns at once, before the renewals that
 * waited on it land, and their keepers write the leases again; without the grace the healthy instances
 * behind them would leave discovery for that moment and requests would find no worker.
 *
 * <p>Threading: Hazelcast listener callbacks only enqueue onto one private thread, which owns the local
 * view, runs heartbeats and emits to watchers, so watchers see events in one order. Thread-safe.
 */
public final class HazelcastDiscovery implements AutoCloseable {

    /** The map holding registrations. */
    public static final String MAP_NAME = "squall.instances";
    /** Events buffered for one slow watcher before it is failed. */
    static final int WATCH_BUFFER = 1024;

    private static final Logger LOG = LoggerFactory.getLogger(HazelcastDiscovery.class);

    private final HazelcastInstance hazelcast;
    private final DiscoveryConfig config;
    private final IMap<String, byte[]> map;
    private final ScheduledExecutorService owner;
    private final Map<InstanceId, WorkerInstance> view = new ConcurrentHashMap<>();
    /** Lapsed leases still listed, by the lapse that started their grace; owned by the owner thread. */
    private final Map<InstanceId, Object> lapsed = new HashMap<>();
    private final List<FluxSink<DiscoveryEvent>> watchers = new CopyOnWriteArrayList<>();
    private final UUID entryListener;
    private final UUID membershipListener;

    public HazelcastDiscovery(HazelcastInstance hazelcast, DiscoveryConfig config) {
        this.hazelcast = Objects.requireNonNull(hazelcast, "hazelcast");
        this.config = Objects.requireNonNull(config, "config");
        this.map = hazelcast.getMap(MAP_NAME);
        ScheduledThreadPoolExecutor owner = new ScheduledThreadPoolExecutor(1, r -> Thread.ofPlatform()
                .name("squall-discovery").daemon(true).unstarted(r));
        owner.setExecuteExistingDelayedTasksAfterShutdownPolicy(false); // a pending grace ends with the view
        this.owner = owner;
        this.entryListener = map.addEntryListener(new Listener(), true);
        this.membershipListener = hazelcast.getCluster().addMembershipListener(new MembershipListener() {
            @Override
            public void memberAdded(MembershipEvent event) {
                // a new member registers its own instances
            }

            @Override
            public void memberRemoved(MembershipEvent event) {
                UUID lost = event.getMember().getUuid();
                owner.execute(() -> dropEntriesOf(lost));
            }
        });
        owner.execute(() -> map.forEach((key, value) -> {
            Lease lease = decode(value);
            if (lease != null) {
                view.putIfAbsent(lease.instance().id(), lease.instance());
            }
        }));
    }

    /** The {@link Discovery} view of this member. */
    public Discovery discovery() {
        return new Discovery() {
            @Override
            public List<WorkerInstance> instances() {
                return List.copyOf(view.values());
            }

            @Override
            public Flux<DiscoveryEvent> watch() {
                return HazelcastDiscovery.this.watch();
            }

            @Override
            public Registration register(WorkerInstance instance, Supplier<LoadReport> load) {
                return HazelcastDiscovery.this.register(instance, load);
            }
        };
    }

    private Flux<DiscoveryEvent> watch() {
        return Flux.<DiscoveryEvent>create(sink -> {
                    owner.execute(() -> {
                        for (WorkerInstance instance : view.values()) {
                            sink.next(new DiscoveryEvent.Added(instance));
                        }
                        watchers.add(sink);
                    });
                    sink.onDispose(() -> watchers.remove(sink));
                })
                .onBackpressureBuffer(WATCH_BUFFER, BufferOverflowStrategy.ERROR)
                .onErrorMap(Exceptions::isOverflow,
                        e -> new StageException(ErrorCode.OVERLOADED, "discovery watcher fell " + WATCH_BUFFER + " events behind"));
    }

    private Registration register(WorkerInstance instance, Supplier<LoadReport> load) {
        Objects.requireNonNull(instance, "instance");
        Objects.requireNonNull(load, "load");
        LeaseKeeper keeper = new LeaseKeeper(map, hazelcast.getCluster().getLocalMember().getUuid(), instance, load, config);
        keeper.publish(keeper.sample());
        keeper.schedule(owner);
        return keeper;
    }

    private void dropEntriesOf(UUID lost) {
        try {
            map.forEach((key, value) -> {
                Lease lease = decode(value);
                if (lease != null && lease.member().equals(lost)) {
                    map.remove(key, value);
                    LOG.info("instance {} left with its cluster member", key);
                }
            });
        } catch (HazelcastInstanceNotActiveException e) {
            LOG.debug("member shut down while dropping lost instances");
        }
    }

    private void apply(EntryEvent<String, byte[]> event, Change change) {
        if (change != Change.WRITTEN) {
            InstanceId id;
            try {
                id = InstanceId.parse(event.getKey());
            } catch (IllegalArgumentException e) {
                LOG.warn("ignoring malformed instance key {}", event.getKey());
                return;
            }
            if (change == Change.LAPSED && view.containsKey(id)) {
                Object lapse = new Object();
                lapsed.put(id, lapse);
                owner.schedule(() -> {
                    if (lapsed.remove(id, lapse)) {
                        drop(id);
                    }
                }, config.leaseTtl().toNanos(), TimeUnit.NANOSECONDS);
            } else {
                drop(id);
            }
            return;
        }
        Lease lease = decode(event.getValue());
        if (lease == null) {
            return;
        }
        lapsed.remove(lease.instance().id());
        WorkerInstance previous = view.put(lease.instance().id(), lease.instance());
        emit(previous == null ? new DiscoveryEvent.Added(lease.instance()) : new DiscoveryEvent.Updated(lease.instance()));
    }

    private void drop(InstanceId id) {
        lapsed.remove(id);
        if (view.remove(id) != null) {
            emit(new DiscoveryEvent.Removed(id));
        }
    }

    private void emit(DiscoveryEvent event) {
        for (FluxSink<DiscoveryEvent> sink : watchers) {
            sink.next(event);
        }
    }

    private static Lease decode(byte[] value) {
        try {
            return Lease.decode(value);
        } catch (StageException e) {
            LOG.warn("ignoring an unreadable registration: {}", e.getMessage());
            return null;
        }
    }

    /** Stops listening and completes every watcher; registrations of this member end with it. */
    @Override
    public void close() {
        try {
            map.removeEntryListener(entryListener);
            hazelcast.getCluster().removeMembershipListener(membershipListener);
        } catch (HazelcastInstanceNotActiveException e) {
            LOG.debug("member already shut down");
        }
        owner.execute(() -> watchers.forEach(FluxSink::complete));
        owner.shutdown();
        try {
            owner.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** What a map event did to a registration. */
    private enum Change {
        WRITTEN, REMOVED, LAPSED
    }

    /** Forwards map events to the owner thread, preserving their order. */
    private final class Listener implements EntryAddedListener<String, byte[]>, EntryUpdatedListener<String, byte[]>,
            EntryRemovedListener<String, byte[]>, EntryExpiredListener<String, byte[]>, EntryEvictedListener<String, byte[]> {

        private void deliver(EntryEvent<String, byte[]> event, Change change) {
            try {
                owner.execute(() -> apply(event, change));
            } catch (RejectedExecutionException e) {
                // an event Hazelcast had dispatched before close() removed the listener: nobody watches any more
                LOG.debug("discovery closed; dropping the {} event of {}", event.getEventType(), event.getKey());
            }
        }

        @Override
        public void entryAdded(EntryEvent<String, byte[]> event) {
            deliver(event, Change.WRITTEN);
        }

        @Override
        public void entryUpdated(EntryEvent<String, byte[]> event) {
            deliver(event, Change.WRITTEN);
        }

        @Override
        public void entryRemoved(EntryEvent<String, byte[]> event) {
            deliver(event, Change.REMOVED);
        }

        @Override
        public void entryExpired(EntryEvent<String, byte[]> event) {
            deliver(event, Change.LAPSED);
        }

        @Override
        public void entryEvicted(EntryEvent<String, byte[]> event) {
            deliver(event, Change.REMOVED);
        }
    }
}

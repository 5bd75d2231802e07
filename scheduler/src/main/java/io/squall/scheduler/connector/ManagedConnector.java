package io.squall.scheduler.connector;

import io.squall.functions.discovery.Discovery;
import io.squall.functions.discovery.WorkerInstance;
import io.squall.scheduler.Pool;
import io.squall.scheduler.Replicas;
import io.squall.scheduler.ScalingConnector;
import io.squall.scheduler.ScalingException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

/**
 * A connector that runs the workers itself: {@code local} starts {@code squall worker} processes on this machine,
 * and a simulation starts workers in its own JVM; both through a {@link WorkerFactory}. A worker counts as ready once
 * it is registered in discovery under its address. Scale-down drains the workers with the fewest sequences (one
 * not yet ready first); closing drains every worker it started. Thread-safe.
 */
public final class ManagedConnector implements ScalingConnector {

    private static final Logger LOG = LoggerFactory.getLogger(ManagedConnector.class);

    private final String name;
    private final WorkerFactory factory;
    private final Discovery discovery;
    private final Map<Pool, List<WorkerHandle>> workers = new EnumMap<>(Pool.class);
    private final Map<Pool, Integer> targets = new EnumMap<>(Pool.class);
    private final List<CompletableFuture<Void>> stopping = new ArrayList<>();

    public ManagedConnector(String name, WorkerFactory factory, Discovery discovery) {
        this.name = Objects.requireNonNull(name, "name");
        this.factory = Objects.requireNonNull(factory, "factory");
        this.discovery = Objects.requireNonNull(discovery, "discovery");
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public synchronized Replicas replicas(Pool pool) {
        List<WorkerHandle> live = live(pool);
        Map<String, WorkerInstance> registered = registered();
        int ready = (int) live.stream().filter(w -> registered.containsKey(w.address())).count();
        return new Replicas(targets.getOrDefault(pool, 0), live.size(), ready);
    }

    @Override
    public synchronized void scale(Pool pool, int replicas) {
        if (replicas < 0) {
            throw new IllegalArgumentException("replicas must not be negative, got " + replicas);
        }
        targets.put(pool, replicas);
        List<WorkerHandle> live = live(pool);
        for (int i = live.size(); i < replicas; i++) {
            WorkerHandle started = factory.start(pool);
            workers.computeIfAbsent(pool, p -> new ArrayList<>()).add(started);
            LOG.info("{} connector: started a {} worker at {}", name, pool, started.address());
        }
        if (live.size() > replicas) {
            Map<String, WorkerInstance> registered = registered();
            List<WorkerHandle> byLoad = new ArrayList<>(live);
            byLoad.sort(Comparator.comparingLong(w -> load(registered.get(w.address()))));
            for (WorkerHandle victim : byLoad.subList(0, live.size() - replicas)) {
                workers.get(pool).remove(victim);
                LOG.info("{} connector: draining the {} worker at {}", name, pool, victim.address());
                stopping.add(victim.stop());
            }
        }
    }

    /** Drains every worker this connector started and waits for them to exit. */
    @Override
    public void close() {
        List<CompletableFuture<Void>> all;
        synchronized (this) {
            all = new ArrayList<>(stopping);
            workers.values().forEach(list -> list.forEach(w -> all.add(w.stop())));
            workers.clear();
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).exceptionally(e -> null).join();
    }

    private List<WorkerHandle> live(Pool pool) {
        List<WorkerHandle> list = workers.computeIfAbsent(pool, p -> new ArrayList<>());
        list.removeIf(w -> {
            if (!w.alive()) {
                LOG.warn("{} connector: the {} worker at {} exited on its own", name, pool, w.address());
                return true;
            }
            return false;
        });
        return List.copyOf(list);
    }

    private Map<String, WorkerInstance> registered() {
        return discovery.instances().stream()
                .collect(Collectors.toMap(w -> w.host() + ":" + w.rsocketPort(), w -> w, (a, b) -> a));
    }

    /** Sequences on a worker; one not yet registered has none and goes first. */
    private static long load(WorkerInstance instance) {
        return instance == null ? -1 : (long) instance.load().activeSequences() + instance.load().queuedSequences();
    }

    /** Fails with a {@link ScalingException} naming the pool. */
    static ScalingException launchFailed(Pool pool, Exception cause) {
        return new ScalingException("could not start a " + pool + " worker: " + cause.getMessage(), cause);
    }
}

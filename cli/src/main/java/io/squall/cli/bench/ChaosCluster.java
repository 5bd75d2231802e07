package io.squall.cli.bench;

import io.squall.functions.discovery.FreePorts;
import io.squall.functions.discovery.WorkerRole;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The cluster a chaos run disturbs, every stage a {@code squall} process of its own on loopback: a cluster member
 * that is a second gateway without traffic (the seed the others join; like every stage's member it holds a share of
 * the block directory, discovery and the KV event ring), the gateway the load goes to, and three workers, each
 * reached through a {@link TcpRelay} it advertises ({@code squall worker --advertise}) and each with a G3 directory
 * of its own. In the disaggregated variant the first worker is a prefill worker and the two others decode.
 *
 * <p>A stage that is lost or replaced is started again in its slot on fresh ports (a gateway on the same HTTP port,
 * so clients reconnect to the same address), joining any member still alive. Not thread-safe: one chaos run drives it.
 */
final class ChaosCluster implements AutoCloseable {

    /** The model id every stage serves. */
    static final String MODEL = "chaos";

    /**
     * What the stages run.
     *
     * @param model          the GGUF file (with the mock engine only its vocabulary is read)
     * @param workerArgs     what every worker gets besides its role, ports and tiers (engine, profile, KV sizes)
     * @param dir            where logs and G3 directories go
     * @param disaggregated  whether the first worker prefills for the two others
     * @param diskBytes      each worker's G3 capacity
     */
    record Setup(Path model, List<String> workerArgs, Path dir, boolean disaggregated, long diskBytes) {
        Setup {
            Objects.requireNonNull(model, "model");
            workerArgs = List.copyOf(workerArgs);
            Objects.requireNonNull(dir, "dir");
        }
    }

    /** A worker's slot: its role, its relay and G3 directory (kept across restarts) and the process in it now. */
    static final class Worker {
        final int slot;
        final WorkerRole role;
        final Path disk;
        TcpRelay relay;
        StageProcess process;

        Worker(int slot, WorkerRole role, Path disk) {
            this.slot = slot;
            this.role = role;
            this.disk = disk;
        }

        /** Whether the gateway streams from it (an aggregated or decode worker). */
        boolean generates() {
            return role != WorkerRole.PREFILL;
        }
    }

    private static final Duration START_LIMIT = Duration.ofMinutes(3);
    /** Lines of a stage's output quoted when it fails to start. */
    private static final int TAIL_LINES = 20;
    /** The address every stage binds, and so where their ports are chosen. */
    private static final String LOOPBACK = "127.0.0.1";

    private final Setup setup;
    private final AtomicInteger started = new AtomicInteger();
    private final List<Worker> workers = new ArrayList<>();
    private final int gatewayHttpPort = FreePorts.one(LOOPBACK);
    private StageProcess member;
    private StageProcess gateway;

    private ChaosCluster(Setup setup) {
        this.setup = setup;
    }

    /** Starts every stage and returns once each answers {@code /readyz}. */
    static ChaosCluster start(Setup setup) throws InterruptedException {
        ChaosCluster cluster = new ChaosCluster(setup);
        try {
            int[] memberPorts = FreePorts.of(LOOPBACK, 2);
            cluster.member = cluster.startGateway("member", memberPorts[0], memberPorts[1],
                    LOOPBACK + ":" + memberPorts[0]);
            cluster.awaitReady(List.of(cluster.member));
            cluster.gateway = cluster.startGateway("gateway", FreePorts.one(LOOPBACK), cluster.gatewayHttpPort,
                    cluster.join());
            for (int slot = 0; slot < 3; slot++) {
                WorkerRole role = !setup.disaggregated() ? WorkerRole.AGGREGATED
                        : slot == 0 ? WorkerRole.PREFILL : WorkerRole.DECODE;
                Worker worker = new Worker(slot, role, setup.dir().resolve("g3-worker-" + slot));
                cluster.workers.add(worker);
                cluster.startWorker(worker);
            }
            cluster.awaitReady(cluster.stages());
            return cluster;
        } catch (RuntimeException | InterruptedException e) {
            cluster.close();
            throw e;
        }
    }

    /** The gateway's root URL; the same across its restarts. */
    URI gatewayUrl() {
        return URI.create("http://" + LOOPBACK + ":" + gatewayHttpPort);
    }

    List<Worker> workers() {
        return List.copyOf(workers);
    }

    StageProcess member() {
        return member;
    }

    StageProcess gateway() {
        return gateway;
    }

    /** The stages running now. */
    List<StageProcess> stages() {
        List<StageProcess> stages = new ArrayList<>();
        stages.add(member);
        stages.add(gateway);
        workers.forEach(w -> stages.add(w.process));
        stages.removeIf(Objects::isNull); // while starting
        return stages;
    }

    /** A live cluster member's address for a process to join. */
    private String join() {
        return stages().stream().filter(StageProcess::alive).findFirst()
                .orElseThrow(() -> new IllegalStateException("no stage of the cluster is running")).gridAddress();
    }

    private StageProcess startGateway(String name, int gridPort, int httpPort, String join) {
        List<String> args = List.of("gateway", "--model", setup.model().toString(), "--served-model-name", MODEL,
                "--join", join, "--host", LOOPBACK, "--grid-port", Integer.toString(gridPort),
                "--http-port", Integer.toString(httpPort), "--rsocket-port", "0", "--rsocket-ws-port", "0");
        return StageProcess.start(name, args, log(name), httpPort, gridPort);
    }

    /** Starts a process in {@code worker}'s slot, behind a new relay, with the slot's G3 directory. */
    private void startWorker(Worker worker) {
        // the relay's port comes from the same call: a relay binding port 0 after the others are released could get one
        int[] ports = FreePorts.of(LOOPBACK, 4);
        int rsocketPort = ports[0];
        int httpPort = ports[1];
        int gridPort = ports[2];
        if (worker.relay != null) {
            worker.relay.close();
        }
        try {
            worker.relay = new TcpRelay(ports[3], new InetSocketAddress(LOOPBACK, rsocketPort));
            Files.createDirectories(worker.disk);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String name = "worker-" + worker.slot + "-" + worker.role.name().toLowerCase(Locale.ROOT);
        List<String> args = new ArrayList<>(List.of("worker", "--role", worker.role.name().toLowerCase(Locale.ROOT),
                "--model", setup.model().toString(), "--served-model-name", MODEL, "--join", join(),
                "--host", LOOPBACK, "--grid-port", Integer.toString(gridPort), "--http-port", Integer.toString(httpPort),
                "--rsocket-port", Integer.toString(rsocketPort), "--advertise", LOOPBACK + ":" + worker.relay.port(),
                "--kv-disk-dir", worker.disk.toString(), "--kv-disk-bytes", Long.toString(setup.diskBytes()),
                "--drain-seconds", "0"));
        args.addAll(setup.workerArgs());
        worker.process = StageProcess.start(name, args, log(name), httpPort, gridPort);
    }

    /** Kills what runs in {@code worker}'s slot, if anything, and starts a new worker there; waits until it is ready. */
    void replace(Worker worker) throws InterruptedException {
        if (worker.process.alive()) {
            worker.process.kill();
        }
        startWorker(worker);
        awaitReady(List.of(worker.process));
    }

    /** {@code SIGKILL} of the gateway, and a new one started at once on the same HTTP port (not waited for). */
    void crashAndRestartGateway() throws InterruptedException {
        gateway.kill();
        gateway = startGateway("gateway", FreePorts.one(LOOPBACK), gatewayHttpPort, join());
    }

    /** {@code SIGKILL} of the seed member. */
    void killMember() throws InterruptedException {
        member.kill();
    }

    /** A new member process in place of the lost one, joining a live member; waits until it is ready. */
    void restartMember() throws InterruptedException {
        int[] ports = FreePorts.of(LOOPBACK, 2);
        member = startGateway("member", ports[0], ports[1], join());
        awaitReady(List.of(member));
    }

    /** Waits until every stage answers {@code /readyz}; fails naming a stage that died or was too slow. */
    void awaitReady(List<StageProcess> stages) throws InterruptedException {
        long until = System.nanoTime() + START_LIMIT.toNanos();
        for (StageProcess stage : stages) {
            while (!stage.ready()) {
                if (!stage.alive()) {
                    throw new IllegalStateException(stage.name() + " exited; see " + stage.log() + ", which ends:\n"
                            + stage.outputTail(TAIL_LINES));
                }
                if (System.nanoTime() - until > 0) {
                    throw new IllegalStateException(stage.name() + " not ready after " + START_LIMIT + "; see " + stage.log()
                            + ", which ends:\n" + stage.outputTail(TAIL_LINES));
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100)); // polling /readyz
            }
        }
    }

    /** KV pages held by sequences on each worker running now, by stage name. */
    Map<String, Long> pagesInUse() throws IOException, InterruptedException {
        Map<String, Long> pages = new LinkedHashMap<>();
        for (Worker worker : workers) {
            if (worker.process.alive()) {
                pages.put(worker.process.name(), new WorkerGauges(List.of(worker.process.metrics())).read().kvPagesInUse());
            }
        }
        return pages;
    }

    /** The G3 tier of the worker in {@code worker}'s slot now. */
    WorkerGauges.Disk disk(Worker worker) throws IOException, InterruptedException {
        return new WorkerGauges(List.of(worker.process.metrics())).disk();
    }

    /** The samples starting with {@code prefix} of each worker running now, by stage name. */
    Map<String, Map<String, Long>> samples(String prefix) throws IOException, InterruptedException {
        Map<String, Map<String, Long>> samples = new LinkedHashMap<>();
        for (Worker worker : workers) {
            if (worker.process.alive()) {
                samples.put(worker.process.name(), new WorkerGauges(List.of(worker.process.metrics())).samples(prefix));
            }
        }
        return samples;
    }

    /** The prefill worker of the disaggregated variant. */
    Worker prefill() {
        return workers.stream().filter(w -> !w.generates()).findFirst()
                .orElseThrow(() -> new IllegalStateException("this cluster has no prefill worker"));
    }

    /** The generating worker with the most sequences running now: the one whose loss disturbs most streams. */
    Worker busiest() {
        return workers.stream().filter(w -> w.generates() && w.process.alive())
                .max(Comparator.comparingLong(this::running))
                .orElseThrow(() -> new IllegalStateException("no generating worker is running"));
    }

    /** Sequences running on the worker in {@code worker}'s slot now (0 if it does not answer). */
    private long running(Worker worker) {
        try {
            return new WorkerGauges(List.of(worker.process.metrics())).read().runningSequences();
        } catch (IOException e) {
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }

    private Path log(String name) {
        return setup.dir().resolve(name + "-" + started.incrementAndGet() + ".log");
    }

    @Override
    public void close() {
        stages().forEach(StageProcess::close);
        workers.forEach(w -> {
            if (w.relay != null) {
                w.relay.close();
            }
        });
    }
}

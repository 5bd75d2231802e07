package io.squall.cli.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code squall bench chaos}: issue 14's chaos suite. Starts a cluster of separate {@code squall} processes
 * ({@link ChaosCluster}), learns the uninterrupted greedy output of a set of prompts on it, then for each fault runs a
 * streaming load ({@link ChaosLoad}), injects the fault ({@link ChaosFault}) while the load runs, undoes it, lets the
 * load end and checks every request and the workers' KV pools ({@link ChaosReport}). JSON on stdout (and
 * {@code --out}), a summary on stderr; exits 1 if any request was lost or answered with other tokens, or a page
 * leaked.
 */
@Command(name = "chaos", description = "Start a gateway, a cluster member and three workers as separate processes, "
        + "run a streaming load of greedy requests of known output and inject faults during it (kill -9 and SIGSTOP of "
        + "a worker, a cut and a slow link, loss of a cluster member, a failing and a corrupt G3 disk, a gateway "
        + "restart, in the disaggregated variant kill -9 and SIGSTOP of the prefill worker); report per fault the requests sent, identical, failed with a typed error, lost, with duplicated "
        + "or missing tokens, leaked KV pages and the recovery time. Exits 1 on any lost or different request or "
        + "leaked page.")
public final class BenchChaosCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--model", required = true, description = "the GGUF model every stage serves (with --engine mock only "
            + "its vocabulary is read: e.g. one written by squall gen-model)")
    Path model;

    @Option(names = "--engine", defaultValue = "mock", description = "the workers' engine, real or mock (default: ${DEFAULT-VALUE})")
    String engine;

    @Option(names = "--profile", description = "mock engine: the workers' profile, e.g. examples/profiles/llama-124m-q8_0-cpu2.json")
    Path profile;

    @Option(names = "--speedup", defaultValue = "1", description = "mock engine: simulated seconds per second (default: ${DEFAULT-VALUE})")
    double speedup;

    @Option(names = "--variant", defaultValue = "aggregated", split = ",", description = "aggregated (three aggregated "
            + "workers), disaggregated (one prefill, two decode workers), or both, comma-separated (default: ${DEFAULT-VALUE})")
    List<String> variants;

    @Option(names = "--faults", split = ",", defaultValue = "kill-worker,pause-worker,cut-link,slow-link,kill-member,"
            + "disk-fails,disk-corrupt,restart-gateway,kill-prefill,pause-prefill", description = "faults to inject, in order; "
            + "kill-prefill and pause-prefill only in the disaggregated variant (default: ${DEFAULT-VALUE})")
    List<String> faults;

    @Option(names = "--users", defaultValue = "6", description = "clients streaming at once (default: ${DEFAULT-VALUE})")
    int users;

    @Option(names = "--prompts", defaultValue = "24", description = "distinct prompts the clients cycle through (default: ${DEFAULT-VALUE})")
    int prompts;

    @Option(names = "--isl", defaultValue = "96", description = "prompt length in words (default: ${DEFAULT-VALUE})")
    int promptWords;

    @Option(names = "--osl", defaultValue = "64", description = "tokens generated per request (default: ${DEFAULT-VALUE})")
    int outputTokens;

    @Option(names = "--kv-blocks", defaultValue = "96", description = "G1 pages per worker: few, so prefixes go to G3 and "
            + "come back (default: ${DEFAULT-VALUE})")
    int kvBlocks;

    @Option(names = "--kv-disk-bytes", defaultValue = "268435456", description = "G3 bytes per worker: by default "
            + "more than the prompts fill, so prefixes G1 evicted come back from G3 (a failing or corrupt disk is met on "
            + "reads); less than they fill (e.g. 32768 with the mock engine's 280-byte pages) keeps G3 writing and "
            + "evicting, never read back (a failing disk is met on writes) (default: ${DEFAULT-VALUE})")
    long diskBytes;

    @Option(names = "--fault-seconds", defaultValue = "15", description = "how long a fault lasts under load before it is "
            + "undone; longer than the 10 s a hung worker takes to be declared lost (default: ${DEFAULT-VALUE})")
    long faultSeconds;

    @Option(names = "--after-seconds", defaultValue = "5", description = "load after a fault is undone (default: ${DEFAULT-VALUE})")
    long afterSeconds;

    @Option(names = "--deadline-seconds", defaultValue = "60", description = "a request's deadline, every resend "
            + "included; one without an end by then is lost (default: ${DEFAULT-VALUE})")
    long deadlineSeconds;

    @Option(names = "--seed", defaultValue = "14", description = "prompt seed (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--dir", description = "where the stages' logs and G3 directories go (default: a new temporary directory)")
    Path dir;

    @Option(names = "--out", description = "also write the report JSON here")
    Path out;

    /** The decode workers' counters of prompts prefilled remotely and of fallbacks to a local prefill, by reason. */
    private static final String REMOTE_PREFILL = "squall_worker_remote_prefill";

    /** How long the stages' KV pools may take to return to their baseline once the load ended. */
    private static final Duration DRAIN_LIMIT = Duration.ofSeconds(60);

    @Override
    public Integer call() throws Exception {
        if (users < 1 || prompts < 1 || promptWords < 1 || outputTokens < 1 || faultSeconds < 1 || afterSeconds < 0
                || deadlineSeconds < 1) {
            throw new IllegalArgumentException("--users, --prompts, --isl, --osl, --fault-seconds and --deadline-seconds "
                    + "must be positive, --after-seconds not negative");
        }
        List<ChaosFault> chosen = faults.stream().map(ChaosFault::parse).toList();
        Path work = dir != null ? Files.createDirectories(dir) : Files.createTempDirectory("squall-chaos-");
        PrintWriter err = spec.commandLine().getErr();
        err.println("squall bench chaos: logs and G3 directories in " + work);
        err.flush();
        List<ChaosReport> reports = new ArrayList<>();
        for (String variant : variants) {
            boolean disaggregated = switch (variant) {
                case "aggregated" -> false;
                case "disaggregated" -> true;
                default -> throw new IllegalArgumentException("--variant must be aggregated or disaggregated, got " + variant);
            };
            ChaosCluster.Setup setup = new ChaosCluster.Setup(model.toAbsolutePath(), workerArgs(disaggregated),
                    Files.createDirectories(work.resolve(variant)), disaggregated, diskBytes);
            try (ChaosCluster cluster = ChaosCluster.start(setup);
                 HttpTarget target = new HttpTarget(cluster.gatewayUrl(), ChaosCluster.MODEL, null,
                         Duration.ofSeconds(deadlineSeconds))) {
                List<BenchRequest> requests = requests();
                long start = System.nanoTime();
                List<String> expected = uninterrupted(target, requests);
                err.printf("squall bench chaos: %s cluster up; the uninterrupted output of %d prompts taken in %.1f s%n",
                        variant, requests.size(), (System.nanoTime() - start) / 1e9);
                err.flush();
                for (ChaosFault fault : chosen) {
                    if (fault.needsPrefillWorker() && !disaggregated) {
                        continue; // the aggregated variant has no prefill worker to fault
                    }
                    ChaosReport report = run(cluster, target, requests, expected, fault, variant);
                    reports.add(report);
                    err.println("squall bench chaos: " + report.line());
                    err.flush();
                }
            }
        }
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("users", users);
        json.put("prompts", prompts);
        json.put("output_tokens", outputTokens);
        json.put("fault_seconds", faultSeconds);
        json.put("deadline_s", deadlineSeconds);
        json.put("faults", reports.stream().map(ChaosReport::json).toList());
        boolean clean = reports.stream().allMatch(ChaosReport::clean);
        json.put("clean", clean);
        ObjectMapper mapper = new ObjectMapper();
        spec.commandLine().getOut().println(mapper.writeValueAsString(json));
        if (out != null) {
            mapper.copy().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out.toFile(), json);
        }
        if (!clean) {
            err.println("squall bench chaos: FAILED: a request was lost or answered with other tokens, or KV pages leaked");
        }
        return clean ? 0 : 1;
    }

    private List<String> workerArgs(boolean disaggregated) {
        List<String> args = new ArrayList<>(List.of("--engine", engine, "--speedup", Double.toString(speedup),
                "--kv-blocks", Integer.toString(kvBlocks)));
        if (profile != null) {
            args.addAll(List.of("--profile", profile.toAbsolutePath().toString()));
        }
        if (disaggregated) {
            // every prompt is long enough to be prefilled remotely
            args.addAll(List.of("--disagg-min-tokens", Integer.toString(Math.max(1, promptWords / 4))));
        }
        return args;
    }

    private List<BenchRequest> requests() {
        Random random = new Random(seed);
        List<BenchRequest> requests = new ArrayList<>();
        for (int i = 0; i < prompts; i++) {
            requests.add(new BenchRequest(List.of(Map.of("role", "user", "content", Workload.words(random, promptWords))),
                    outputTokens));
        }
        return requests;
    }

    /** Each prompt's output on the cluster before any fault, {@code users} at a time. */
    private List<String> uninterrupted(Target target, List<BenchRequest> requests) throws Exception {
        try (ExecutorService clients = Executors.newFixedThreadPool(users, Thread.ofPlatform().name("chaos-reference-", 0).factory())) {
            List<Future<Outcome>> outcomes = new ArrayList<>();
            for (BenchRequest request : requests) {
                outcomes.add(clients.submit(() -> target.send(request)));
            }
            List<String> texts = new ArrayList<>();
            for (Future<Outcome> future : outcomes) {
                Outcome outcome = future.get();
                if (!outcome.ok()) {
                    throw new IllegalStateException("the undisturbed cluster failed a request: " + outcome.error());
                }
                texts.add(outcome.text());
            }
            return texts;
        }
    }

    /** One fault under load, from the baseline to the drained pools. */
    private ChaosReport run(ChaosCluster cluster, Target target, List<BenchRequest> requests, List<String> expected,
                            ChaosFault fault, String variant) throws Exception {
        cluster.awaitReady(cluster.stages());
        Map<String, Long> baseline = cluster.pagesInUse();
        Map<String, Map<String, Long>> prefillsBefore = cluster.samples(REMOTE_PREFILL);
        ChaosLoad load = new ChaosLoad(target, requests, expected, Duration.ofSeconds(deadlineSeconds));
        load.start(users);
        if (!load.awaitEnded(users, Duration.ofSeconds(deadlineSeconds))) { // every client has streamed once: steady load
            throw new IllegalStateException("the load did not get going before the fault " + fault.label());
        }
        long faultAt = System.nanoTime();
        ChaosFault.Injected injected = fault.inject(cluster);
        WorkerGauges.Disk diskBefore = injected.disk() == null ? null : cluster.disk(injected.disk());
        pauseUntil(faultAt + TimeUnit.SECONDS.toNanos(faultSeconds));
        Map<String, Long> disk = null;
        if (injected.disk() != null) { // whether the fault met traffic: what the disk tier did while it lasted
            WorkerGauges.Disk diskAfter = cluster.disk(injected.disk());
            disk = new LinkedHashMap<>();
            disk.put("blocks_before", diskBefore.blocks());
            disk.put("blocks_after", diskAfter.blocks());
            disk.put("blocks_read", diskAfter.read() - diskBefore.read());
            disk.put("blocks_written", diskAfter.written() - diskBefore.written());
            disk.put("writes_refused", diskAfter.refused() - diskBefore.refused());
            disk.put("corrupt_copies_dropped", diskAfter.discarded() - diskBefore.discarded());
        }
        injected.heal().run();
        pauseUntil(System.nanoTime() + TimeUnit.SECONDS.toNanos(afterSeconds));
        List<ChaosLoad.Result> results = load.stop();
        long leaked = leaked(cluster, baseline);
        Map<String, Long> prefills = variant.equals("disaggregated")
                ? difference(prefillsBefore, cluster.samples(REMOTE_PREFILL)) : null;
        return new ChaosReport(fault, variant, injected.victim(), results, faultAt, leaked, disk, prefills);
    }

    /**
     * What the counters grew by from {@code before} to {@code after}, summed over the workers in both (a worker
     * started meanwhile counts from 0), keyed without the {@code squall_worker_} prefix.
     */
    private static Map<String, Long> difference(Map<String, Map<String, Long>> before, Map<String, Map<String, Long>> after) {
        Map<String, Long> grown = new TreeMap<>();
        after.forEach((worker, counters) -> counters.forEach((name, value) -> grown.merge(
                name.substring("squall_worker_".length()),
                value - before.getOrDefault(worker, Map.of()).getOrDefault(name, 0L), Long::sum)));
        return grown;
    }

    /**
     * Pages the workers hold beyond their baseline (a worker started since counts from 0), once they are back to it or
     * {@link #DRAIN_LIMIT} passed: a cancelled or migrated sequence frees its pages when its worker sees it end.
     */
    private static long leaked(ChaosCluster cluster, Map<String, Long> baseline) throws Exception {
        long until = System.nanoTime() + DRAIN_LIMIT.toNanos();
        while (true) {
            long leaked = 0;
            for (Map.Entry<String, Long> pages : cluster.pagesInUse().entrySet()) {
                leaked += Math.max(0, pages.getValue() - baseline.getOrDefault(pages.getKey(), 0L));
            }
            if (leaked == 0 || System.nanoTime() - until > 0) {
                return leaked;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(250)); // polling the workers' gauges
        }
    }

    /** The fault window: the load runs on meanwhile. */
    private static void pauseUntil(long nanoTime) {
        for (long left = nanoTime - System.nanoTime(); left > 0; left = nanoTime - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }
}

package io.squall.cli.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code squall bench soak}: a long closed-loop load against a running server (many streams of mixed prompt and
 * output lengths) while the serving JVM and its workers are sampled on an interval ({@link ProcessProbe},
 * {@link WorkerGauges}); writes the time series and the start-versus-end summary after warm-up as JSON. Every
 * failed request is printed to stderr as it happens and makes the command exit 1, as does the server process
 * dying.
 */
@Command(name = "soak", description = "Run many streams of mixed prompt lengths against a running server for a long "
        + "time while sampling the serving JVM (heap after GC, RSS, threads, open files, direct buffers) and its workers "
        + "(KV pages in use); write the series and their start/end after warm-up as JSON. Exits 1 on any failed "
        + "request or if the server process dies.")
public final class BenchSoakCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--url", defaultValue = "http://127.0.0.1:8000", description = "the server's root URL (default: ${DEFAULT-VALUE})")
    URI url;

    @Option(names = "--model", defaultValue = "auto", description = "model name, or auto for the first /v1/models lists "
            + "(default: ${DEFAULT-VALUE})")
    String model;

    @Option(names = "--pid", required = true, description = "process id of the serving JVM (squall serve), sampled over "
            + "JMX (attach) and /proc")
    long pid;

    @Option(names = "--worker-metrics", required = true, split = ",", description = "the workers' /metrics URLs "
            + "(squall serve prints them), for KV pages in use")
    List<URI> workerMetrics;

    @Option(names = "--concurrency", defaultValue = "64", description = "streams at once (default: ${DEFAULT-VALUE})")
    int concurrency;

    @Option(names = "--duration", defaultValue = "1800", description = "seconds of load (default: ${DEFAULT-VALUE})")
    long durationSeconds;

    @Option(names = "--warmup", defaultValue = "300", description = "seconds after which the series are judged "
            + "(default: ${DEFAULT-VALUE})")
    long warmupSeconds;

    @Option(names = "--interval", defaultValue = "30", description = "seconds between samples (default: ${DEFAULT-VALUE})")
    long intervalSeconds;

    @Option(names = "--isl", defaultValue = "32,128,512,1024", split = ",", description = "prompt lengths in tokens, one "
            + "drawn per request (default: ${DEFAULT-VALUE})")
    List<Integer> isl;

    @Option(names = "--osl", defaultValue = "16,64,128", split = ",", description = "output lengths in tokens, one drawn "
            + "per request (default: ${DEFAULT-VALUE})")
    List<Integer> osl;

    @Option(names = "--seed", defaultValue = "0", description = "workload seed (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--api-key", description = "API key to send as a bearer token")
    String apiKey;

    @Option(names = "--out", required = true, description = "report file (JSON)")
    Path out;

    @Override
    public Integer call() throws Exception {
        if (concurrency < 1 || durationSeconds < 1 || intervalSeconds < 1 || warmupSeconds < 0 || warmupSeconds >= durationSeconds) {
            throw new IllegalArgumentException("--concurrency, --duration and --interval must be positive and --warmup "
                    + "shorter than --duration");
        }
        PrintWriter err = spec.commandLine().getErr();
        List<String> firstErrors = Collections.synchronizedList(new ArrayList<>());
        Map<String, Object> report = new LinkedHashMap<>();
        try (HttpTarget target = new HttpTarget(url, model, apiKey); ProcessProbe probe = new ProcessProbe(pid)) {
            SoakLoad.Mix mix = new SoakLoad.Mix(isl, osl, LoadGenerator.tokensPerWord(target, seed), seed);
            WorkerGauges gauges = new WorkerGauges(workerMetrics);
            SoakSeries series = new SoakSeries();
            Map<String, Number> baseline = sample(probe, gauges, null);
            long start = System.nanoTime();
            SoakLoad load = new SoakLoad(target, mix, error -> {
                double at = (System.nanoTime() - start) / 1e9;
                err.printf("squall bench soak: REQUEST FAILED at t=%.1f s: %s%n", at, error);
                err.flush();
                if (firstErrors.size() < 20) {
                    firstErrors.add(String.format("t=%.1f s: %s", at, error));
                }
            });
            load.start(concurrency);
            boolean alive = true;
            for (long k = 1; k * intervalSeconds <= durationSeconds; k++) {
                long due = start + TimeUnit.SECONDS.toNanos(k * intervalSeconds);
                for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
                    LockSupport.parkNanos(wait); // the sampling clock
                }
                if (!probe.alive()) {
                    alive = false;
                    err.println("squall bench soak: THE SERVER PROCESS " + pid + " DIED at t=" + k * intervalSeconds + " s");
                    break;
                }
                Map<String, Number> sample = sample(probe, gauges, load);
                series.add((System.nanoTime() - start) / 1e9, sample);
                err.println("squall bench soak: " + progress((System.nanoTime() - start) / 1e9, sample));
                err.flush();
            }
            load.stop();
            Map<String, Number> drained = alive ? drained(probe, gauges, load) : Map.of();
            report.put("url", url.toString());
            report.put("model", target.model());
            report.put("pid", pid);
            report.put("concurrency", concurrency);
            report.put("duration_s", durationSeconds);
            report.put("warmup_s", warmupSeconds);
            report.put("interval_s", intervalSeconds);
            report.put("isl", isl);
            report.put("osl", osl);
            report.put("requests_completed", load.completed());
            report.put("requests_failed", load.failed());
            report.put("output_tokens", load.outputTokens());
            report.put("server_alive", alive);
            report.put("first_errors", List.copyOf(firstErrors));
            report.put("baseline_before_load", baseline);
            report.put("drained_after_load", drained);
            report.put("summary_after_warmup", series.summary(warmupSeconds));
            report.put("samples", series.rows());
        }
        ObjectMapper mapper = new ObjectMapper();
        Path parent = out.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        mapper.copy().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out.toFile(), report);
        Map<String, Object> brief = new LinkedHashMap<>(report);
        brief.remove("samples");
        spec.commandLine().getOut().println(mapper.writeValueAsString(brief));
        long failed = (long) report.get("requests_failed");
        if (failed > 0 || !(boolean) report.get("server_alive")) {
            err.println("squall bench soak: FAILED: " + failed + " request(s) failed"
                    + ((boolean) report.get("server_alive") ? "" : ", and the server process died"));
            return 1;
        }
        return 0;
    }

    private static Map<String, Number> sample(ProcessProbe probe, WorkerGauges gauges, SoakLoad load) throws Exception {
        ProcessProbe.Sample process = probe.sample();
        WorkerGauges.Reading workers = gauges.read();
        Map<String, Number> values = new LinkedHashMap<>();
        values.put("heap_after_gc_bytes", process.heapAfterGcBytes());
        values.put("heap_committed_bytes", process.heapCommittedBytes());
        values.put("rss_bytes", process.rssBytes());
        values.put("threads", process.threads());
        values.put("open_files", process.openFiles());
        values.put("direct_buffer_bytes", process.directBytes());
        values.put("direct_buffers", process.directBuffers());
        values.put("kv_pages_in_use", workers.kvPagesInUse());
        values.put("running_sequences", workers.runningSequences());
        values.put("requests_completed", load == null ? 0 : load.completed());
        values.put("requests_failed", load == null ? 0 : load.failed());
        return values;
    }

    /**
     * A sample once the workers report no running sequence (the load's last requests finished on the client side
     * before the workers' next load report), waiting at most a minute for that.
     */
    private static Map<String, Number> drained(ProcessProbe probe, WorkerGauges gauges, SoakLoad load) throws Exception {
        long until = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (gauges.read().runningSequences() > 0 && System.nanoTime() < until) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500)); // polling the workers' gauges
        }
        return sample(probe, gauges, load);
    }

    private static String progress(double seconds, Map<String, Number> s) {
        return String.format("t=%.0f s completed=%d failed=%d heap_after_gc=%.1f MiB rss=%.1f MiB threads=%d "
                        + "open_files=%d direct=%.1f MiB (%d) kv_pages_in_use=%d running=%d", seconds,
                s.get("requests_completed").longValue(), s.get("requests_failed").longValue(),
                s.get("heap_after_gc_bytes").doubleValue() / (1 << 20), s.get("rss_bytes").doubleValue() / (1 << 20),
                s.get("threads").intValue(), s.get("open_files").intValue(),
                s.get("direct_buffer_bytes").doubleValue() / (1 << 20), s.get("direct_buffers").longValue(),
                s.get("kv_pages_in_use").longValue(), s.get("running_sequences").longValue());
    }
}

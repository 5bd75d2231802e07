package io.squall.cli.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.squall.kvgrid.hash.BlockHasher;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code squall bench serve}: streaming load against an OpenAI-compatible server, reported as DESIGN §11a. */
@Command(name = "serve", description = "Load-test an OpenAI-compatible server with streaming chat requests; print the "
        + "report JSON and write it (and a PNG of the distributions) to --out.")
public final class BenchServeCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @ArgGroup(multiplicity = "1")
    Server server;

    static final class Server {
        @Option(names = "--url", description = "the server's root URL, e.g. http://127.0.0.1:8000")
        URI url;

        @Option(names = "--embedded", description = "start a worker and a gateway for this GGUF in this process, on "
                + "loopback, and measure through them")
        Path embedded;
    }

    @Option(names = "--direct", description = "with --embedded: bypass the gateway and call the worker's "
            + "GenerateService in process (the baseline for the gateway's overhead)")
    boolean direct;

    @Option(names = "--model", defaultValue = "auto", description = "model name, or auto for the first /v1/models lists "
            + "(default: ${DEFAULT-VALUE})")
    String model;

    @Option(names = "--concurrency", defaultValue = "1", description = "requests in flight (default: ${DEFAULT-VALUE})")
    int concurrency;

    @Option(names = "--requests", defaultValue = "100", description = "requests in all (default: ${DEFAULT-VALUE})")
    int requests;

    @Option(names = "--isl", defaultValue = "128", description = "input tokens per request (default: ${DEFAULT-VALUE})")
    int isl;

    @Option(names = "--osl", defaultValue = "128", description = "output tokens per request (default: ${DEFAULT-VALUE})")
    int osl;

    @Option(names = "--prefix-share", defaultValue = "0", description = "fraction of the input that is a prefix shared by "
            + "all requests (default: ${DEFAULT-VALUE})")
    double prefixShare;

    @Option(names = "--turns", defaultValue = "1", description = "turns per simulated user; each resends the history "
            + "(default: ${DEFAULT-VALUE})")
    int turns;

    @Option(names = "--rate", defaultValue = "0", description = "conversations started per second (Poisson), 0 for as "
            + "fast as --concurrency allows (default: ${DEFAULT-VALUE})")
    double rate;

    @Option(names = "--seed", defaultValue = "0", description = "workload seed (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--warmup", defaultValue = "0", description = "requests to run first, unreported, to warm the JIT "
            + "(default: ${DEFAULT-VALUE})")
    int warmup;

    @Option(names = "--trace", description = "trace to replay instead of synthetic prompts: JSONL chat lines "
            + "(prompt or messages, max_tokens, optional session), replayed with --concurrency; or the Mooncake format "
            + "(timestamp, input_length, output_length, hash_ids), replayed open-loop at its timestamps")
    Path trace;

    @Option(names = "--trace-block-size", defaultValue = "512", description = "Mooncake trace: tokens per hash id "
            + "(default: ${DEFAULT-VALUE})")
    int traceBlockSize;

    @Option(names = "--speedup", defaultValue = "1", description = "time compression matching mock workers started "
            + "with the same --speedup: a trace is sent that much faster, and times are reported in simulated time "
            + "(default: ${DEFAULT-VALUE})")
    double speedup;

    @Option(names = "--rate-scale", defaultValue = "1", description = "Mooncake trace: multiplies the arrival rate "
            + "(the load itself) (default: ${DEFAULT-VALUE})")
    double rateScale;

    @Option(names = "--kv-block-size", defaultValue = "" + BlockHasher.DEFAULT_BLOCK_SIZE, description = "the workers' "
            + "KV block size in tokens (as they advertise it), for the cache-hit ceiling (default: ${DEFAULT-VALUE})")
    int kvBlockSize;

    @Option(names = "--api-key", description = "API key to send as a bearer token")
    String apiKey;

    @Option(names = "--out", description = "report file (JSON); the PNG is written beside it")
    Path out;

    @Override
    public Integer call() throws Exception {
        if (direct && server.embedded == null) {
            throw new IllegalArgumentException("--direct needs --embedded");
        }
        if (!(speedup > 0) || !(rateScale > 0)) {
            throw new IllegalArgumentException("--speedup and --rate-scale must be positive");
        }
        String name = model.equals("auto") ? "model" : model;
        try (EmbeddedStack stack = server.embedded == null ? null : new EmbeddedStack(server.embedded, name, !direct);
             Target target = target(stack)) {
            LoadGenerator generator = new LoadGenerator(target, concurrency, rate, seed);
            if (warmup > 0) {
                generator.run(Workload.synthetic(warmup, isl, osl, 0, 1, ~seed, LoadGenerator.tokensPerWord(target, seed)));
            }
            Report.Run run;
            String title;
            if (trace != null && MooncakeTrace.recognises(trace)) {
                MooncakeTrace replay = MooncakeTrace.read(trace, traceBlockSize, MooncakeTrace.alphabet(target), seed);
                run = replay.replay(new TraceReplay(target, speedup * rateScale, kvBlockSize));
                title = "squall bench serve: " + trace.getFileName() + " x" + rateScale + " rate";
            } else {
                Workload workload = trace != null ? Workload.trace(trace)
                        : Workload.synthetic(requests, isl, osl, prefixShare, turns, seed, LoadGenerator.tokensPerWord(target, seed));
                run = generator.run(workload);
                title = "squall bench serve: c=" + concurrency + " isl=" + isl + " osl=" + osl + (direct ? " (direct)" : "");
            }
            Map<String, Object> report = Report.of(run, new Report.Options(speedup, kvBlockSize,
                    request -> request.isTokens() ? request.prompt() : target.tokenize(request.messages())));
            ObjectMapper mapper = new ObjectMapper();
            spec.commandLine().getOut().println(mapper.writeValueAsString(report));
            spec.commandLine().getOut().flush();
            if (out != null) {
                Path parent = out.toAbsolutePath().getParent();
                Files.createDirectories(parent);
                mapper.copy().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out.toFile(), report);
                String png = out.getFileName().toString().replaceFirst("\\.json$", "") + ".png";
                DistributionPlot.write(run, speedup, title, parent.resolve(png));
            }
            @SuppressWarnings("unchecked")
            Map<String, Long> kinds = (Map<String, Long>) report.get("error_kinds");
            kinds.forEach((kind, count) -> spec.commandLine().getErr().println("squall bench serve: " + count
                    + " request(s) failed: " + kind));
            return 0;
        }
    }

    private Target target(EmbeddedStack stack) {
        if (stack == null) {
            return new HttpTarget(server.url, model, apiKey);
        }
        return direct ? new DirectTarget(stack.endpoint()) : new HttpTarget(stack.url(), model, apiKey);
    }
}

package io.squall.cli.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.squall.cli.model.ModelStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * {@code squall bench fuzz}: fuzzed RSocket requests and raw frames against a running cluster ({@code --join} and
 * {@code --gateway}: {@code squall serve} or stages in processes of their own, found through discovery), or against
 * a prefill worker, a decode worker and a gateway started in this process ({@code --model}, {@link FuzzStack});
 * prints the {@link FuzzReport} and exits 1 unless every request got a typed answer in time, the stages kept serving
 * and the same workers are registered after the run as before it.
 */
@Command(name = "fuzz", description = "Send random and mutated RSocket frames and payloads to every route of a running "
        + "cluster's workers and gateway (--join, --gateway), or of stages started in this process (--model); report how "
        + "each was answered. Exits 1 on any untyped or INTERNAL error, timeout, failed health check or lost worker.")
public final class BenchFuzzCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--join", description = "a cluster member's host:port (squall serve's is 127.0.0.1:5701): fuzz "
            + "that running cluster (open clusters only)")
    String join;

    @Option(names = "--gateway", defaultValue = "127.0.0.1:7000", description = "with --join: the gateway's RSocket "
            + "TCP host:port (default: ${DEFAULT-VALUE})")
    String gateway;

    @Option(names = "--model", description = "instead of --join: the GGUF model the stages started in this process serve "
            + "(a file, hf:OWNER/REPO/FILE.gguf or an https:// URL; a small one: requests that mutate into valid ones "
            + "are served)")
    String model;

    @Option(names = "--frames", defaultValue = "100000", description = "requests and raw frames to send (default: ${DEFAULT-VALUE})")
    long frames;

    @Option(names = "--seed", defaultValue = "1", description = "seed of the fuzz corpus (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--raw-share", defaultValue = "10", description = "one in this many is a raw frame on a worker's TCP port; "
            + "0 for none (default: ${DEFAULT-VALUE})")
    int rawShare;

    @Option(names = "--deadline-ms", defaultValue = "10000", description = "longest wait for one answer (default: ${DEFAULT-VALUE})")
    long deadlineMs;

    @Option(names = "--out", description = "also write the report JSON here")
    Path out;

    @Override
    public Integer call() throws Exception {
        if (frames < 1 || rawShare < 0 || deadlineMs < 1) {
            throw new IllegalArgumentException("--frames and --deadline-ms must be positive and --raw-share not negative");
        }
        if ((join == null) == (model == null)) {
            throw new IllegalArgumentException("give --join HOST:PORT (a running cluster) or --model FILE (stages in this process)");
        }
        Duration deadline = Duration.ofMillis(deadlineMs);
        FuzzReport report;
        try (FuzzTarget target = model != null ? new FuzzStack(ModelStore.fromEnvironment().resolve(model)) : joined(deadline)) {
            Set<String> before = target.workers();
            report = new WireFuzzer(target.targets(), deadline).run(frames, seed, rawShare, (int) Math.min(1000, frames));
            report = report.withWorkers(before, target.workers());
        }
        ObjectMapper mapper = new ObjectMapper();
        spec.commandLine().getOut().println(mapper.writeValueAsString(report.json()));
        if (out != null) {
            mapper.copy().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out.toFile(), report.json());
        }
        return report.clean() ? 0 : 1;
    }

    private JoinedCluster joined(Duration wait) {
        int colon = gateway.lastIndexOf(':');
        if (colon < 1) {
            throw new IllegalArgumentException("--gateway must be HOST:PORT, got " + gateway);
        }
        int port;
        try {
            port = Integer.parseInt(gateway.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--gateway must be HOST:PORT, got " + gateway);
        }
        return new JoinedCluster(join, gateway.substring(0, colon), port, wait);
    }
}

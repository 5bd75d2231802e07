package io.squall.cli;

import io.squall.cli.launch.SquallCommandLine;
import io.squall.scheduler.Pool;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The command line of a {@code squall worker} process the {@code local} connector starts: this JVM's own java, JVM
 * options and class path (so the worker runs the same build with the same flags), the pool's role, the cluster seed
 * and the RSocket port picked for it, and the engine and stage options to pass on.
 */
final class WorkerLauncher {

    private final String seed;
    private final String host;
    private final List<String> workerArgs;
    private final Path diskTiers;

    /**
     * @param seed       the cluster member the workers join, {@code host:port}
     * @param host       the address workers bind and advertise
     * @param workerArgs what every worker gets besides role, seed and ports (model, engine, KV sizes)
     * @param diskTiers  where each worker gets a G3 directory of its own, or null for none
     */
    WorkerLauncher(String seed, String host, List<String> workerArgs, Path diskTiers) {
        this.seed = seed;
        this.host = host;
        this.workerArgs = List.copyOf(workerArgs);
        this.diskTiers = diskTiers;
    }

    List<String> command(Pool pool, int rsocketPort) {
        List<String> line = new ArrayList<>();
        line.add("worker");
        line.add("--role");
        line.add(pool.name().toLowerCase(Locale.ROOT));
        line.add("--join");
        line.add(seed);
        line.add("--host");
        line.add(host);
        line.add("--rsocket-port");
        line.add(Integer.toString(rsocketPort));
        line.addAll(workerArgs);
        if (diskTiers != null) {
            line.add("--kv-disk-dir");
            line.add(diskTiers.resolve("worker-" + rsocketPort).toAbsolutePath().toString());
        }
        return SquallCommandLine.of(line);
    }
}

package io.squall.cli.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The faults a chaos run injects into a {@link ChaosCluster} under load, each with what undoes it once the fault
 * window is over. A worker fault hits the generating worker with the most running sequences.
 */
enum ChaosFault {

    /** {@code SIGKILL} of a worker; a new worker takes its slot afterwards. */
    KILL_WORKER {
        @Override
        Injected inject(ChaosCluster cluster) throws InterruptedException {
            return kill(cluster, cluster.busiest());
        }
    },

    /** {@code SIGSTOP} of a worker (a hang: its sockets stay open, nothing answers), {@code SIGCONT} afterwards. */
    PAUSE_WORKER {
        @Override
        Injected inject(ChaosCluster cluster) {
            return pause(cluster.busiest());
        }
    },

    /** Every connection to a worker reset at once (its relay cuts them); new connections pass. */
    CUT_LINK {
        @Override
        Injected inject(ChaosCluster cluster) {
            ChaosCluster.Worker worker = cluster.busiest();
            worker.relay.cut();
            return new Injected(worker.process.name(), () -> { });
        }
    },

    /** The link to a worker made slow: 200 ms added to every chunk, 32 KiB/s. */
    SLOW_LINK {
        @Override
        Injected inject(ChaosCluster cluster) {
            ChaosCluster.Worker worker = cluster.busiest();
            TcpRelay relay = worker.relay;
            relay.slow(Duration.ofMillis(200), 32 * 1024);
            return new Injected(worker.process.name(), () -> relay.slow(Duration.ZERO, 0));
        }
    },

    /** {@code SIGKILL} of the seed cluster member (a share of the block directory, discovery, the KV event ring). */
    KILL_MEMBER {
        @Override
        Injected inject(ChaosCluster cluster) throws InterruptedException {
            String victim = cluster.member().name();
            cluster.killMember();
            return new Injected(victim, cluster::restartMember);
        }
    },

    /**
     * A worker's G3 disk fails every write and read: its directory is moved away and a plain file put in its place,
     * so each file operation in it fails with an {@link IOException} ("Not a directory"), as on a disk that filled or
     * went read-only. (A real full disk cannot be made here: the processes run as root, which no permission stops,
     * and no small file system can be mounted.) Restored afterwards.
     */
    DISK_FAILS {
        @Override
        Injected inject(ChaosCluster cluster) throws IOException {
            ChaosCluster.Worker worker = cluster.busiest();
            Path aside = worker.disk.resolveSibling(worker.disk.getFileName() + ".aside");
            Files.move(worker.disk, aside);
            Files.writeString(worker.disk, "not a directory: the chaos suite's failing disk\n");
            return new Injected(worker.process.name(), () -> {
                Files.delete(worker.disk);
                Files.move(aside, worker.disk);
            }, worker);
        }
    },

    /** Every G3 block file of a worker overwritten in the middle of its page (its CRC32C no longer matches). */
    DISK_CORRUPT {
        @Override
        Injected inject(ChaosCluster cluster) throws IOException {
            ChaosCluster.Worker worker = cluster.busiest();
            int corrupted = 0;
            try (DirectoryStream<Path> files = Files.newDirectoryStream(worker.disk, "*.kvb")) {
                for (Path file : files) {
                    corrupted += corrupt(file) ? 1 : 0;
                }
            }
            return new Injected(worker.process.name() + " (" + corrupted + " block files)", () -> { }, worker);
        }
    },

    /** {@code SIGKILL} of the prefill worker (disaggregated only); decode workers prefill themselves meanwhile. */
    KILL_PREFILL {
        @Override
        Injected inject(ChaosCluster cluster) throws InterruptedException {
            return kill(cluster, cluster.prefill());
        }
    },

    /** {@code SIGSTOP} of the prefill worker (disaggregated only), {@code SIGCONT} afterwards. */
    PAUSE_PREFILL {
        @Override
        Injected inject(ChaosCluster cluster) {
            return pause(cluster.prefill());
        }
    },

    /** {@code SIGKILL} of the gateway and a new one started on the same port at once; clients reconnect. */
    RESTART_GATEWAY {
        @Override
        Injected inject(ChaosCluster cluster) throws InterruptedException {
            cluster.crashAndRestartGateway();
            return new Injected("gateway", () -> cluster.awaitReady(List.of(cluster.gateway())));
        }
    };

    /** What undoes a fault. */
    interface Heal {
        void run() throws Exception;
    }

    /**
     * A fault in place.
     *
     * @param victim the stage it hit
     * @param heal   what undoes it
     * @param disk   the worker whose G3 disk it hit, or null
     */
    record Injected(String victim, Heal heal, ChaosCluster.Worker disk) {
        Injected(String victim, Heal heal) {
            this(victim, heal, null);
        }
    }

    abstract Injected inject(ChaosCluster cluster) throws Exception;

    /** {@code SIGKILL} of {@code worker}; healing starts a new worker in its slot. */
    private static Injected kill(ChaosCluster cluster, ChaosCluster.Worker worker) throws InterruptedException {
        String victim = worker.process.name();
        worker.process.kill();
        return new Injected(victim, () -> cluster.replace(worker));
    }

    /** {@code SIGSTOP} of {@code worker}; healing sends {@code SIGCONT}. */
    private static Injected pause(ChaosCluster.Worker worker) {
        StageProcess paused = worker.process;
        paused.pause();
        return new Injected(paused.name(), paused::resume);
    }

    /** Whether the fault needs a prefill worker, which only the disaggregated variant has. */
    boolean needsPrefillWorker() {
        return this == KILL_PREFILL || this == PAUSE_PREFILL;
    }

    /** The fault's name on the command line and in the report, e.g. {@code kill-worker}. */
    String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    static ChaosFault parse(String label) {
        return Arrays.stream(values()).filter(f -> f.label().equals(label)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown fault '" + label + "'; the faults are "
                        + String.join(", ", Arrays.stream(values()).map(ChaosFault::label).toList())));
    }

    /** Overwrites 64 bytes in the middle of {@code file}; false if it went away meanwhile (evicted). */
    private static boolean corrupt(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            byte[] noise = new byte[64];
            Arrays.fill(noise, (byte) 0x5A);
            channel.write(ByteBuffer.wrap(noise), Math.max(0, channel.size() / 2 - noise.length / 2));
            return true;
        } catch (NoSuchFileException e) {
            return false;
        }
    }
}

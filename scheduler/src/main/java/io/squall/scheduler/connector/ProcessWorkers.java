package io.squall.scheduler.connector;

import io.squall.functions.discovery.FreePorts;
import io.squall.scheduler.Pool;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

/**
 * Starts workers as processes on this machine (the {@code local} connector): the command comes from the caller (the
 * CLI knows how to run {@code squall worker}), given the pool and the RSocket port this factory picked, so the
 * worker can be recognised in discovery. Each process logs to a file of its own. Stopping sends {@code SIGTERM}
 * (the worker drains) and, after the grace period, {@code SIGKILL}.
 */
public final class ProcessWorkers implements WorkerFactory {

    private final BiFunction<Pool, Integer, List<String>> command;
    private final String host;
    private final Path logs;
    private final Duration grace;
    private final AtomicInteger started = new AtomicInteger();

    /**
     * @param command the command line of a worker of a pool listening for RSocket on a port
     * @param host    the address workers bind and register
     * @param logs    where each worker's output goes ({@code worker-N.log})
     * @param grace   how long a draining worker may take before it is killed
     */
    public ProcessWorkers(BiFunction<Pool, Integer, List<String>> command, String host, Path logs, Duration grace) {
        this.command = command;
        this.host = host;
        this.logs = logs;
        this.grace = grace;
    }

    @Override
    public WorkerHandle start(Pool pool) {
        // released before the worker binds it: FreePorts keeps it from the workers started next
        int port = FreePorts.one(host);
        List<String> line = new ArrayList<>(command.apply(pool, port));
        try {
            Files.createDirectories(logs);
            File log = logs.resolve("worker-" + started.incrementAndGet() + "-" + pool.name().toLowerCase() + ".log").toFile();
            Process process = new ProcessBuilder(line).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log)).start();
            return new WorkerProcess(process, host + ":" + port);
        } catch (IOException e) {
            throw ManagedConnector.launchFailed(pool, e);
        }
    }

    private final class WorkerProcess implements WorkerHandle {
        private final Process process;
        private final String address;
        private CompletableFuture<Void> stopped;

        WorkerProcess(Process process, String address) {
            this.process = process;
            this.address = address;
        }

        @Override
        public String address() {
            return address;
        }

        @Override
        public boolean alive() {
            return process.isAlive();
        }

        @Override
        public synchronized CompletableFuture<Void> stop() {
            if (stopped == null) {
                process.destroy(); // SIGTERM: the worker drains
                stopped = CompletableFuture.runAsync(() -> {
                    try {
                        if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                            process.destroyForcibly();
                            process.waitFor();
                        }
                    } catch (InterruptedException e) {
                        process.destroyForcibly();
                        Thread.currentThread().interrupt();
                    }
                }, runnable -> Thread.ofPlatform().name("squall-worker-stop").daemon(true).start(runnable));
            }
            return stopped;
        }
    }
}

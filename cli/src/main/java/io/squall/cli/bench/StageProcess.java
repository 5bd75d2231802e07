package io.squall.cli.bench;

import io.squall.cli.launch.SquallCommandLine;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One {@code squall} stage running as a process of its own (a JVM like this one), with the ports it was given and
 * the file its output goes to, and the signals a chaos test sends it: {@code SIGKILL}, {@code SIGSTOP} and
 * {@code SIGCONT}, {@code SIGTERM}. Thread-safe.
 */
final class StageProcess implements AutoCloseable {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final String name;
    private final Process process;
    private final Path log;
    private final int httpPort;
    private final int gridPort;

    private StageProcess(String name, Process process, Path log, int httpPort, int gridPort) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.httpPort = httpPort;
        this.gridPort = gridPort;
    }

    /**
     * Starts {@code squall args}; its output (stdout and stderr) is appended to {@code log}.
     *
     * @param httpPort the stage's HTTP port (health, metrics), among {@code args}
     * @param gridPort its cluster member's port, among {@code args}
     */
    static StageProcess start(String name, List<String> args, Path log, int httpPort, int gridPort) {
        try {
            Process process = new ProcessBuilder(SquallCommandLine.of(args)).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            return new StageProcess(name, process, log, httpPort, gridPort);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name, e);
        }
    }

    String name() {
        return name;
    }

    /** Where its output goes. */
    Path log() {
        return log;
    }

    /** The last {@code lines} lines of its output, for a failure's message (a run's temporary directory may not outlive it). */
    String outputTail(int lines) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(its output cannot be read: " + e + ")";
        }
    }

    int httpPort() {
        return httpPort;
    }

    /** Its cluster member's address, which later processes may join. */
    String gridAddress() {
        return "127.0.0.1:" + gridPort;
    }

    URI metrics() {
        return URI.create("http://127.0.0.1:" + httpPort + "/metrics");
    }

    boolean alive() {
        return process.isAlive();
    }

    /** Whether {@code /readyz} answers 200 now. */
    boolean ready() {
        try {
            HttpResponse<Void> response = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/readyz"))
                    .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding());
            return response.statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** {@code SIGKILL}, and waits for the process to be gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    /** {@code SIGSTOP}: the process hangs (its sockets stay open, nothing answers). */
    void pause() {
        signal("STOP");
    }

    /** {@code SIGCONT}: a paused process runs on. */
    void resume() {
        signal("CONT");
    }

    private void signal(String name) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** {@code SIGCONT} and {@code SIGTERM} (the stage drains), then {@code SIGKILL} if it still runs 10 s later. */
    @Override
    public void close() {
        if (!process.isAlive()) {
            return;
        }
        resume(); // a paused process cannot act on SIGTERM
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}

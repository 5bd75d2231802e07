package io.squall.knative.image;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A JDK 25 ahead-of-time cache (JEP 483, 514, 515: classes loaded and linked, and method profiles) recorded by a
 * training run: {@code java <flags> -XX:AOTCacheOutput=FILE -jar squall.jar <workload>}. A later JVM started with
 * {@code -XX:AOTCache=FILE}, the same runtime, the same jar (it may sit in another directory) and compatible flags
 * starts with those classes already loaded and its JIT compilers primed.
 *
 * @param java the {@code java} executable of the runtime that will use the cache
 * @param jvmFlags the JVM flags the cache will be used with
 * @param jar the application jar
 */
public record AotTraining(Path java, List<String> jvmFlags, Path jar) {

    public AotTraining {
        Objects.requireNonNull(java, "java");
        Objects.requireNonNull(jar, "jar");
        jvmFlags = List.copyOf(jvmFlags);
    }

    /**
     * Runs {@code workload} (the jar's arguments) once and writes the cache to {@code cache}; the training run's
     * output goes to {@code log}.
     *
     * @throws IllegalStateException if the workload fails, takes longer than {@code timeoutSeconds} or writes no cache
     */
    public Path train(List<String> workload, Path cache, Path log, long timeoutSeconds) {
        List<String> command = new ArrayList<>();
        command.add(java.toString());
        command.addAll(jvmFlags);
        command.add("-XX:AOTCacheOutput=" + cache.toAbsolutePath());
        command.add("-jar");
        command.add(jar.toAbsolutePath().toString());
        command.addAll(workload);
        try {
            Files.deleteIfExists(cache);
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("the AOT training run took longer than " + timeoutSeconds + " s; its log: " + log);
            }
            if (process.exitValue() != 0 || !Files.isRegularFile(cache)) {
                throw new IllegalStateException("the AOT training run failed (exit " + process.exitValue() + "): "
                        + tail(log));
            }
            return cache;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run the AOT training run", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during the AOT training run", e);
        }
    }

    private static String tail(Path log) throws IOException {
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    }
}

package io.squall.cli;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

/**
 * One part of a stage's start run on a thread of its own while the caller starts another, so that the two overlap:
 * Hazelcast's start (~1 s) beside the model's loading and the kernels', the configuration's environment beside
 * picocli's model of the commands. {@link #get} waits for the part and rethrows its failure as it was;
 * {@link #abandon} is for a caller that fails first, and closes the part once it is ready.
 *
 * @param <T> what the part makes
 */
final class Starting<T extends AutoCloseable> {

    private final CompletableFuture<T> future;

    private Starting(CompletableFuture<T> future) {
        this.future = future;
    }

    /** Starts {@code part} on a new platform thread named {@code name}. */
    static <T extends AutoCloseable> Starting<T> start(String name, Supplier<T> part) {
        return new Starting<>(CompletableFuture.supplyAsync(part, task -> Thread.ofPlatform().name(name).start(task)));
    }

    /** Waits for the part; its exception, if it failed. */
    T get() {
        try {
            return future.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw e;
        }
    }

    /** Closes the part when it is ready (at once if it is); a failed part has nothing to close. */
    void abandon() {
        future.thenAccept(part -> Cluster.closeAll(part));
    }
}

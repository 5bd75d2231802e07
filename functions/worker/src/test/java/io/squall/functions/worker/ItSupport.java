package io.squall.functions.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Arrays;
import java.util.function.BooleanSupplier;

/** What the worker integration tests share: waiting for a condition, free ports, joined prompts. */
final class ItSupport {

    /** How long a condition may take before the test fails. */
    static final Duration CONDITION_TIMEOUT = Duration.ofSeconds(60);

    private ItSupport() {
    }

    /** Polls {@code condition} until it holds; fails the test after {@link #CONDITION_TIMEOUT}. */
    static void awaitTrue(BooleanSupplier condition) {
        long deadline = System.nanoTime() + CONDITION_TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition within %s", CONDITION_TIMEOUT).isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    /** A TCP port free on loopback now. */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code first} followed by {@code second}. */
    static int[] concat(int[] first, int[] second) {
        int[] all = Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, all, first.length, second.length);
        return all;
    }
}

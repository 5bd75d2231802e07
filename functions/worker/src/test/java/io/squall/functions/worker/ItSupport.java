package io.squall.functions.worker;

import io.rsocket.RSocket;
import io.squall.functions.api.GenerateRequest;
import io.squall.functions.api.TokenChunk;
import io.squall.functions.api.rsocket.RSocketGenerateClient;
import io.squall.functions.api.rsocket.StageConnections;
import io.squall.functions.discovery.FreePorts;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/** What the worker integration tests share: waiting for a condition, free ports, joined prompts, a generation over RSocket. */
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

    /** A TCP port free on loopback now, and not one this JVM handed out lately ({@link FreePorts}). */
    static int freePort() {
        return FreePorts.one("127.0.0.1");
    }

    /** {@code first} followed by {@code second}. */
    static int[] concat(int[] first, int[] second) {
        int[] all = Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, all, first.length, second.length);
        return all;
    }

    /** The tokens of a finished generation and the usage its last chunk reported. */
    record Generated(int[] tokens, TokenChunk.Usage usage) {
    }

    /** Runs {@code request} to the end on the worker whose RSocket TCP port is {@code rsocketPort}, on a connection of its own. */
    static Generated generate(int rsocketPort, GenerateRequest request) {
        RSocket rsocket = StageConnections.tcp("127.0.0.1", rsocketPort).block(CONDITION_TIMEOUT);
        try {
            List<TokenChunk> chunks = new RSocketGenerateClient(rsocket).generate(request).collectList()
                    .block(CONDITION_TIMEOUT);
            int[] tokens = chunks.stream().flatMapToInt(chunk -> Arrays.stream(chunk.tokenIds())).toArray();
            return new Generated(tokens, chunks.getLast().usage());
        } finally {
            rsocket.dispose();
        }
    }
}

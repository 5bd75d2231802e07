package io.squall.functions.api.rsocket;

import io.rsocket.RSocket;
import io.squall.functions.api.ErrorCode;
import io.squall.functions.api.GenerateRequest;
import io.squall.functions.api.SamplingOptions;
import io.squall.functions.api.StageException;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class StageConnectionsTest {

    /**
     * A peer that accepts the connection and then never answers (a stopped process, a frozen VM: the kernel still
     * holds the socket open) fails the stream {@code UNAVAILABLE} once keepalives go unanswered, well before
     * RSocket's own 90 s default would.
     */
    @Test
    void aPeerThatStopsAnsweringIsLost() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread.ofPlatform().daemon(true).start(() -> swallow(silent));
            RSocket rsocket = StageConnections.tcp("127.0.0.1", silent.getLocalPort()).block(Duration.ofSeconds(10));
            try {
                StepVerifier.create(new RSocketGenerateClient(rsocket).generate(
                                new GenerateRequest("hung", new int[]{1, 2, 3}, SamplingOptions.greedy(), 4, true, -1)))
                        .expectErrorSatisfies(e -> assertThat(e).isInstanceOfSatisfying(StageException.class,
                                stage -> assertThat(stage.code()).isEqualTo(ErrorCode.UNAVAILABLE)))
                        .verify(StageConnections.KEEPALIVE_TIMEOUT.multipliedBy(4)); // a guard, not a measurement
            } finally {
                rsocket.dispose();
            }
        }
    }

    /** Accepts one connection and reads it to its end, never writing a byte. */
    private static void swallow(ServerSocket server) {
        try (Socket peer = server.accept(); InputStream in = peer.getInputStream()) {
            in.transferTo(OutputStream.nullOutputStream());
        } catch (IOException e) {
            // the client closed the connection: the test has its answer
        }
    }
}

package io.squall.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.exceptions.CustomRSocketException;
import io.rsocket.transport.ClientTransport;
import io.rsocket.transport.netty.client.TcpClientTransport;
import io.rsocket.transport.netty.client.WebsocketClientTransport;
import io.rsocket.util.DefaultPayload;
import io.squall.functions.api.ErrorCode;
import io.squall.functions.api.Routes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.squall.gateway.ClientApi.connect;
import static io.squall.gateway.ClientApi.stream;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The RSocket client API, routes v1.chat and v1.completions, over TCP and WebSocket on loopback, with an API key. */
class RSocketIT {

    private static final String KEY = "sk-rsocket-test";
    private static final String CHAT = """
            {"model":"demo","messages":[{"role":"user","content":"hello"}],"max_tokens":4,"temperature":0,
             "ignore_eos":true,"stream_options":{"include_usage":true}}""";

    @TempDir
    static Path dir;
    private static TestWorker worker;
    private static GatewayServer server;

    @BeforeAll
    static void start() {
        worker = new TestWorker(dir);
        server = GatewayServer.start(GatewayConfig.loopback().withSecurity(
                new GatewayConfig.Security(List.of(KEY), null, null)), Map.of("demo", worker.endpoint));
    }

    @AfterAll
    static void stop() {
        server.close();
        worker.close();
    }

    private static void chatWorksOver(ClientTransport transport) {
        RSocket socket = connect(transport);
        try {
            List<JsonNode> chunks = stream(socket, Routes.V1_CHAT, KEY, CHAT);
            assertThat(chunks.getFirst().path("object").asText()).isEqualTo("chat.completion.chunk");
            assertThat(chunks.getFirst().path("choices").path(0).path("delta").path("role").asText()).isEqualTo("assistant");
            assertThat(chunks.get(chunks.size() - 2).path("choices").path(0).path("finish_reason").asText()).isEqualTo("length");
            assertThat(chunks.getLast().path("usage").path("completion_tokens").asInt()).isEqualTo(4);

            List<JsonNode> completion = stream(socket, Routes.V1_COMPLETIONS, KEY,
                    "{\"model\":\"demo\",\"prompt\":\"abc\",\"max_tokens\":3,\"ignore_eos\":true}");
            assertThat(completion.getLast().path("choices").path(0).path("finish_reason").asText()).isEqualTo("length");

            assertThatThrownBy(() -> stream(socket, Routes.V1_CHAT, null, CHAT))
                    .isInstanceOfSatisfying(CustomRSocketException.class, e -> {
                        assertThat(e.errorCode()).isEqualTo(ErrorCode.INVALID_REQUEST.rsocketCode());
                        assertThat(e.getMessage()).contains("authentication_error");
                    });
            assertThatThrownBy(() -> stream(socket, "v1.nothing", KEY, CHAT))
                    .isInstanceOfSatisfying(CustomRSocketException.class,
                            e -> assertThat(e.errorCode()).isEqualTo(ErrorCode.NOT_FOUND.rsocketCode()));
            assertThatThrownBy(() -> stream(socket, Routes.V1_CHAT, KEY, "{\"model\":\"demo\"}"))
                    .isInstanceOfSatisfying(CustomRSocketException.class, e -> {
                        assertThat(e.errorCode()).isEqualTo(ErrorCode.INVALID_REQUEST.rsocketCode());
                        assertThat(e.getMessage()).contains("\"param\":\"messages\"");
                    });
            // composite metadata whose first entry announces more bytes than follow: the client's error, typed
            Payload malformed = DefaultPayload.create(CHAT.getBytes(StandardCharsets.UTF_8),
                    new byte[] {(byte) 0xFE, 0x00, 0x00, 0x7F, 0x01});
            assertThatThrownBy(() -> socket.requestStream(malformed).blockLast(Duration.ofSeconds(60)))
                    .isInstanceOfSatisfying(CustomRSocketException.class, e -> {
                        assertThat(e.errorCode()).isEqualTo(ErrorCode.INVALID_REQUEST.rsocketCode());
                        assertThat(e.getMessage()).contains("malformed RSocket metadata");
                    });
        } finally {
            socket.dispose();
        }
    }

    @Test
    void chatOverTcp() {
        chatWorksOver(TcpClientTransport.create("127.0.0.1", server.rsocketTcpPort()));
    }

    @Test
    void chatOverWebSocket() {
        chatWorksOver(WebsocketClientTransport.create(URI.create("ws://127.0.0.1:" + server.rsocketWebSocketPort() + "/rsocket")));
    }

    @Test
    void chatOverWebSocketOnTheHttpPort() { // Knative's one port: the OpenAI API and /rsocket side by side
        chatWorksOver(WebsocketClientTransport.create(URI.create("ws://127.0.0.1:" + server.httpPort() + "/rsocket")));
    }
}

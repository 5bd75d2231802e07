package io.squall.cli.bench;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class StreamingHttpClientTest {

    /** Answers two requests on one connection: a chunked SSE stream, then a Content-Length error body. */
    @Test
    void readsChunkedAndSizedBodiesOverOneKeptAliveConnection() throws Exception {
        AtomicInteger connections = new AtomicInteger();
        try (ServerSocket server = new ServerSocket(0)) {
            Thread serving = Thread.ofPlatform().start(() -> {
                try (Socket socket = server.accept()) {
                    connections.incrementAndGet();
                    BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1));
                    OutputStream out = socket.getOutputStream();
                    readRequest(in);
                    out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
                            + chunk("data: {\"a\":\"é\"}\n\n") + chunk("data: [DONE]\n\n") + "0\r\n\r\n")
                            .getBytes(StandardCharsets.UTF_8));
                    out.flush();
                    readRequest(in);
                    out.write("HTTP/1.1 429 Too Many Requests\r\nContent-Length: 7\r\n\r\nslow do".getBytes(StandardCharsets.UTF_8));
                    out.flush();
                    in.read(); // until the client closes
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            try (StreamingHttpClient client = new StreamingHttpClient(URI.create("http://127.0.0.1:" + server.getLocalPort()),
                    Duration.ofSeconds(5), Duration.ofSeconds(5))) {
                List<String> lines = new ArrayList<>();
                try (StreamingHttpClient.Response response = client.post("/v1/x", Map.of("Content-Type", "application/json"),
                        "{}".getBytes(StandardCharsets.UTF_8))) {
                    assertThat(response.status()).isEqualTo(200);
                    for (String line; (line = response.readLine()) != null; ) {
                        lines.add(line);
                    }
                }
                assertThat(lines).containsExactly("data: {\"a\":\"é\"}", "", "data: [DONE]", "");
                try (StreamingHttpClient.Response response = client.post("/v1/x", Map.of(), new byte[0])) {
                    assertThat(response.status()).isEqualTo(429);
                    assertThat(response.readLine()).isEqualTo("slow do");
                    assertThat(response.readLine()).isNull();
                }
            }
            serving.join(5000);
            assertThat(connections).hasValue(1);
        }
    }

    private static String chunk(String text) {
        int bytes = text.getBytes(StandardCharsets.UTF_8).length;
        return Integer.toHexString(bytes) + "\r\n" + text + "\r\n";
    }

    private static void readRequest(BufferedReader in) throws IOException {
        int length = 0;
        for (String line; !(line = in.readLine()).isEmpty(); ) {
            if (line.toLowerCase().startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(15).trim());
            }
        }
        in.skip(length);
    }
}

package io.squall.gateway;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketConnector;
import io.rsocket.transport.netty.client.TcpClientTransport;
import io.rsocket.util.DefaultPayload;
import io.squall.gateway.security.ApiKeyGuard;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.netty.tcp.TcpClient;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** API keys, per-key rate limits and TLS (a self-signed certificate made with keytool for the test). */
class SecurityIT {

    private static final String PASSWORD = "changeit";

    @TempDir
    static Path dir;
    private static TestWorker worker;

    @BeforeAll
    static void start() {
        worker = new TestWorker(dir);
    }

    @AfterAll
    static void stop() {
        worker.close();
    }

    private static GatewayServer gateway(GatewayConfig.Security security) {
        return GatewayServer.start(GatewayConfig.loopback().withSecurity(security), Map.of("demo", worker.endpoint));
    }

    @Test
    void keysAreRequiredOnTheApiButNotOnHealth() throws Exception {
        Path file = dir.resolve("keys.txt");
        Files.writeString(file, "# gateway keys\nsk-one\n\nsk-two\n");
        try (GatewayServer server = gateway(new GatewayConfig.Security(GatewayConfig.readApiKeys(file), null, null))) {
            Http http = Http.to(server);
            OpenAiHttpIT.assertError(http.get("/v1/models"), 401, "invalid_api_key");
            OpenAiHttpIT.assertError(http.get("/v1/models", "Authorization", "Bearer sk-on"), 401, "invalid_api_key");
            OpenAiHttpIT.assertError(http.post("/v1/completions", "{\"model\":\"demo\",\"prompt\":\"x\"}",
                    "Authorization", "Basic c2stb25l"), 401, "invalid_api_key");
            assertThat(http.get("/v1/models", "Authorization", "Bearer sk-two").statusCode()).isEqualTo(200);
            assertThat(http.post("/v1/completions", "{\"model\":\"demo\",\"prompt\":\"x\",\"max_tokens\":1}",
                    "Authorization", "Bearer sk-one").statusCode()).isEqualTo(200);
            assertThat(http.get("/health").statusCode()).isEqualTo(200);
            assertThat(http.get("/metrics").body()).doesNotContain("sk-one").doesNotContain("sk-two");
        }
    }

    @Test
    void eachKeyHasItsOwnTokenBucket() throws Exception {
        // A refill of one request per ~3 hours: within the test only the burst of 2 is available.
        ApiKeyGuard.RateLimit limit = new ApiKeyGuard.RateLimit(1e-4, 2);
        try (GatewayServer server = gateway(new GatewayConfig.Security(List.of("sk-a", "sk-b"), limit, null))) {
            Http http = Http.to(server);
            assertThat(http.get("/v1/models", "Authorization", "Bearer sk-a").statusCode()).isEqualTo(200);
            assertThat(http.get("/v1/models", "Authorization", "Bearer sk-a").statusCode()).isEqualTo(200);
            OpenAiHttpIT.assertError(http.get("/v1/models", "Authorization", "Bearer sk-a"), 429, "rate_limit_exceeded");
            assertThat(http.get("/v1/models", "Authorization", "Bearer sk-b").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void tlsServesHttpsAndRSocketWithTheConfiguredCertificate() throws Exception {
        Path keyStore = dir.resolve("gateway.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "gateway", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
                "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12",
                "-keystore", keyStore.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD)
                .redirectErrorStream(true).start();
        keytool.getInputStream().transferTo(System.out);
        assertThat(keytool.waitFor()).isZero();
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keyStore)) {
            trusted.load(in, PASSWORD.toCharArray());
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
        GatewayConfig.Tls tls = new GatewayConfig.Tls(keyStore, PASSWORD, "PKCS12");
        try (GatewayServer server = gateway(new GatewayConfig.Security(List.of(), null, tls))) {
            SSLContext ssl = SSLContext.getInstance("TLS");
            ssl.init(null, trust.getTrustManagers(), null);
            HttpClient client = HttpClient.newBuilder().sslContext(ssl).version(HttpClient.Version.HTTP_1_1).build();
            HttpResponse<String> models = client.send(HttpRequest.newBuilder(
                            URI.create("https://localhost:" + server.httpPort() + "/v1/models")).timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(models.statusCode()).isEqualTo(200);
            assertThat(models.body()).contains("\"demo\"");

            SslContext clientSsl = SslContextBuilder.forClient().trustManager(trust).build();
            TcpClient tcp = TcpClient.create().host("localhost").port(server.rsocketTcpPort())
                    .secure(spec -> spec.sslContext(clientSsl));
            RSocket socket = RSocketConnector.create()
                    .metadataMimeType("message/x.rsocket.routing.v0").dataMimeType("application/json")
                    .connect(TcpClientTransport.create(tcp)).block(Duration.ofSeconds(30));
            try {
                byte[] route = "v1.completions".getBytes(java.nio.charset.StandardCharsets.UTF_8);
                byte[] routing = new byte[route.length + 1];
                routing[0] = (byte) route.length;
                System.arraycopy(route, 0, routing, 1, route.length);
                List<String> chunks = socket.requestStream(DefaultPayload.create(
                                "{\"model\":\"demo\",\"prompt\":\"tls\",\"max_tokens\":2,\"ignore_eos\":true}".getBytes(java.nio.charset.StandardCharsets.UTF_8), routing))
                        .map(p -> {
                            String data = p.getDataUtf8();
                            p.release();
                            return data;
                        })
                        .collectList().block(Duration.ofSeconds(30));
                assertThat(chunks.getLast()).contains("\"finish_reason\":\"length\"");
            } finally {
                socket.dispose();
            }
        }
    }
}

package io.squall.gateway;

import io.squall.gateway.security.ApiKeyGuard;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Everything a {@link GatewayServer} is configured with.
 *
 * @param listen   where to listen
 * @param limits   admission, timeout and body-size limits
 * @param security API keys, rate limit and TLS
 */
public record GatewayConfig(Listen listen, Limits limits, Security security) {

    public GatewayConfig {
        Objects.requireNonNull(listen, "listen");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(security, "security");
    }

    /**
     * Addresses. Port 0 picks a free port; -1 disables an RSocket listener.
     *
     * @param host                 interface to bind, e.g. {@code 0.0.0.0} or {@code 127.0.0.1}
     * @param httpPort             the OpenAI HTTP API (HTTPS with TLS)
     * @param rsocketTcpPort       RSocket over TCP (routes {@code v1.chat}, {@code v1.completions})
     * @param rsocketWebSocketPort RSocket over WebSocket at path {@code /rsocket}
     */
    public record Listen(String host, int httpPort, int rsocketTcpPort, int rsocketWebSocketPort) {
        public Listen {
            Objects.requireNonNull(host, "host");
            port("httpPort", httpPort, false);
            port("rsocketTcpPort", rsocketTcpPort, true);
            port("rsocketWebSocketPort", rsocketWebSocketPort, true);
        }

        private static void port(String name, int port, boolean mayDisable) {
            if (port > 65535 || port < (mayDisable ? -1 : 0)) {
                throw new IllegalArgumentException(name + " out of range: " + port);
            }
        }
    }

    /**
     * Limits.
     *
     * @param maxInFlight     requests generating at once; more wait in the queue
     * @param maxQueued       requests that may wait; beyond that the gateway answers 503
     * @param requestTimeout  longest a request may take, queueing included; then 504 (or an error event)
     * @param maxRequestBytes largest request body; larger gets 413
     */
    public record Limits(int maxInFlight, int maxQueued, Duration requestTimeout, long maxRequestBytes) {
        public Limits {
            if (maxInFlight < 1 || maxQueued < 0 || maxRequestBytes < 1) {
                throw new IllegalArgumentException("limits must be positive: " + maxInFlight + ", " + maxQueued + ", "
                        + maxRequestBytes);
            }
            Objects.requireNonNull(requestTimeout, "requestTimeout");
            if (requestTimeout.isNegative() || requestTimeout.isZero()) {
                throw new IllegalArgumentException("requestTimeout must be positive");
            }
        }
    }

    /**
     * Security.
     *
     * @param apiKeys   accepted API keys; empty means no authentication
     * @param rateLimit per-key request rate, or null for none
     * @param tls       TLS for HTTP and both RSocket listeners, or null for plain text
     */
    public record Security(List<String> apiKeys, ApiKeyGuard.RateLimit rateLimit, Tls tls) {
        public Security {
            apiKeys = List.copyOf(apiKeys);
            for (String key : apiKeys) {
                if (key.isBlank()) {
                    throw new IllegalArgumentException("API keys must not be blank");
                }
            }
        }

        /** No keys, no rate limit, no TLS. */
        public static Security none() {
            return new Security(List.of(), null, null);
        }
    }

    /**
     * A key store holding the server's private key and certificate chain.
     *
     * @param keyStore the key store file
     * @param password its password (also the key's)
     * @param type     {@code PKCS12} or {@code JKS}
     */
    public record Tls(Path keyStore, String password, String type) {
        public Tls {
            Objects.requireNonNull(keyStore, "keyStore");
            Objects.requireNonNull(password, "password");
            Objects.requireNonNull(type, "type");
        }

        @Override
        public String toString() {
            return "Tls[keyStore=" + keyStore + ", type=" + type + "]";
        }
    }

    /** Production defaults: all interfaces, HTTP 8000, RSocket TCP 7000, RSocket WebSocket 8001, 256 in flight. */
    public static GatewayConfig defaults() {
        return new GatewayConfig(new Listen("0.0.0.0", 8000, 7000, 8001), defaultLimits(), Security.none());
    }

    /** Loopback on free ports, default limits, no security: for tests and embedded use. */
    public static GatewayConfig loopback() {
        return new GatewayConfig(new Listen("127.0.0.1", 0, 0, 0), defaultLimits(), Security.none());
    }

    private static Limits defaultLimits() {
        return new Limits(256, 1024, Duration.ofMinutes(10), 4L << 20);
    }

    public GatewayConfig withListen(Listen listen) {
        return new GatewayConfig(listen, limits, security);
    }

    public GatewayConfig withLimits(Limits limits) {
        return new GatewayConfig(listen, limits, security);
    }

    public GatewayConfig withSecurity(Security security) {
        return new GatewayConfig(listen, limits, security);
    }

    /**
     * Reads API keys from a file: one per line; blank lines and lines starting with {@code #} are skipped.
     *
     * @throws UncheckedIOException if the file cannot be read
     */
    public static List<String> readApiKeys(Path file) {
        try {
            return Files.readAllLines(file).stream().map(String::strip)
                    .filter(line -> !line.isEmpty() && !line.startsWith("#")).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read API keys from " + file, e);
        }
    }
}

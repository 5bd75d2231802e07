package io.squall.cli.model;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stand-in for the Hugging Face hub on loopback that behaves as the hub does where a download depends on it:
 * {@code /OWNER/REPO/resolve/REVISION/FILE} answers with a 302 to a CDN on another host name and publishes the file's SHA-256 as
 * {@code X-Linked-Etag} (and {@code ETag}) and its size as {@code X-Linked-Size}; the CDN path serves the bytes with
 * byte ranges ({@code Range: bytes=N-} → 206 with {@code Content-Range}); unknown files are 404. Faults on
 * demand: a body cut short after some bytes, and bytes that differ from the published hash. Plain files under
 * {@code /files/} are served without redirect or hash, with an {@code ETag}, as an https:// URL would be.
 */
public final class HubStandIn implements AutoCloseable {

    /** One file the stand-in serves. */
    public static final class File {
        final byte[] bytes;
        final String sha256;
        /** Bytes the next GETs send before cutting the body short, one entry per GET; consumed in order. */
        final List<Integer> cuts = new CopyOnWriteArrayList<>();
        /** When set, the bytes served differ from the published hash (a corrupt upstream copy). */
        volatile boolean corrupt;

        File(byte[] bytes) {
            this.bytes = bytes;
            this.sha256 = sha256(bytes);
        }
    }

    private final HttpServer server;
    private final Map<String, File> hubFiles = new ConcurrentHashMap<>();
    private final Map<String, File> plainFiles = new ConcurrentHashMap<>();
    /** Every request line seen, with its Range header: "GET /cdn/... bytes=100-". */
    public final List<String> requests = new CopyOnWriteArrayList<>();
    public final AtomicInteger gets = new AtomicInteger();
    /** The Authorization header of each request path that carried one. */
    final Map<String, String> authorizations = new ConcurrentHashMap<>();

    public HubStandIn() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.createContext("/", this::handle);
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.start();
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** Serves {@code bytes} as {@code OWNER/REPO}'s {@code path} at revision main. */
    public File hubFile(String repo, String path, byte[] bytes) {
        File file = new File(bytes);
        hubFiles.put("/" + repo + "/resolve/main/" + path, file);
        return file;
    }

    /** Serves {@code bytes} at {@code /files/name}. */
    File plainFile(String name, byte[] bytes) {
        File file = new File(bytes);
        plainFiles.put("/files/" + name, file);
        return file;
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            String range = exchange.getRequestHeaders().getFirst("Range");
            requests.add(exchange.getRequestMethod() + " " + path + (range == null ? "" : " " + range));
            String authorization = exchange.getRequestHeaders().getFirst("Authorization");
            if (authorization != null) {
                authorizations.put(path, authorization);
            }
            File hub = hubFiles.get(path);
            if (hub != null) { // the hub: publish hash and size, send the client to the CDN
                exchange.getResponseHeaders().add("X-Linked-Etag", "\"" + hub.sha256 + "\"");
                exchange.getResponseHeaders().add("ETag", "\"" + hub.sha256 + "\"");
                exchange.getResponseHeaders().add("X-Linked-Size", Integer.toString(hub.bytes.length));
                exchange.getResponseHeaders().add("X-Repo-Commit", "0123456789abcdef0123456789abcdef01234567");
                // the CDN is another host, as the hub's is: "localhost" rather than "127.0.0.1"
                exchange.getResponseHeaders().add("Location", "http://localhost:" + server.getAddress().getPort()
                        + "/cdn/" + hub.sha256 + "?signature=stand-in");
                exchange.sendResponseHeaders(302, -1);
                return;
            }
            if (path.startsWith("/cdn/")) {
                File cdn = hubFiles.values().stream().filter(f -> path.equals("/cdn/" + f.sha256)).findFirst().orElse(null);
                serveBytes(exchange, cdn, range, "\"cdn-" + (cdn == null ? "" : cdn.sha256.substring(0, 8)) + "\"");
                return;
            }
            File plain = plainFiles.get(path);
            serveBytes(exchange, plain, range, plain == null ? null : "\"" + plain.sha256.substring(0, 16) + "\"");
        }
    }

    private void serveBytes(HttpExchange exchange, File file, String range, String etag) throws IOException {
        if (file == null) {
            exchange.getResponseHeaders().add("X-Error-Code", "EntryNotFound");
            exchange.sendResponseHeaders(404, -1);
            return;
        }
        byte[] bytes = file.corrupt ? corrupted(file.bytes) : file.bytes;
        exchange.getResponseHeaders().add("Accept-Ranges", "bytes");
        exchange.getResponseHeaders().add("ETag", etag);
        int from = 0;
        if (range != null && range.startsWith("bytes=") && range.endsWith("-")) {
            from = Integer.parseInt(range.substring(6, range.length() - 1));
            if (from >= bytes.length) {
                exchange.getResponseHeaders().add("Content-Range", "bytes */" + bytes.length);
                exchange.sendResponseHeaders(416, -1);
                return;
            }
            exchange.getResponseHeaders().add("Content-Range", "bytes " + from + "-" + (bytes.length - 1) + "/" + bytes.length);
        }
        int length = bytes.length - from;
        if (exchange.getRequestMethod().equals("HEAD")) {
            exchange.getResponseHeaders().add("Content-Length", Integer.toString(length));
            exchange.sendResponseHeaders(from > 0 ? 206 : 200, -1);
            return;
        }
        gets.incrementAndGet();
        exchange.sendResponseHeaders(from > 0 ? 206 : 200, length);
        int send = file.cuts.isEmpty() ? length : Math.min(length, file.cuts.removeFirst());
        OutputStream body = exchange.getResponseBody();
        body.write(bytes, from, send);
        body.flush();
        if (send < length) {
            // the connection closes with the body short of its Content-Length, as a dropped download's does
            throw new IOException("cut the body short on purpose after " + send + " of " + length + " bytes");
        }
    }

    private static byte[] corrupted(byte[] bytes) {
        byte[] copy = bytes.clone();
        copy[copy.length / 2] ^= 0x5a;
        return copy;
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        ((ExecutorService) server.getExecutor()).shutdownNow();
    }
}

package io.squall.cli.bench;

import javax.net.ssl.SSLSocketFactory;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * A minimal blocking HTTP/1.1 client for the benchmark's timed requests: the calling thread writes the request and
 * reads the response off the socket itself, so an SSE event is timed when the kernel hands it over. The JDK's
 * {@code java.net.http} client passes every read from its selector thread to an executor and from there to the
 * caller, two thread hops per event that on a loaded machine cost milliseconds and made events arrive in bursts.
 *
 * <p>One request per connection at a time; idle keep-alive connections are pooled (at most one per concurrent
 * caller) and a request that finds its pooled connection closed by the server is retried once on a new one.
 * Bodies framed by {@code Content-Length}, chunked, or by the end of the connection; plain TCP or TLS (the JVM's
 * default trust). Thread-safe.
 */
final class StreamingHttpClient implements AutoCloseable {

    private final String host;
    private final int port;
    private final boolean tls;
    private final int connectTimeoutMillis;
    private final int readTimeoutMillis;
    private final ConcurrentLinkedDeque<Connection> idle = new ConcurrentLinkedDeque<>();

    /** @param base {@code http://host:port} or {@code https://host:port} */
    StreamingHttpClient(URI base, Duration connectTimeout, Duration readTimeout) {
        this.tls = "https".equalsIgnoreCase(base.getScheme());
        if (!tls && !"http".equalsIgnoreCase(base.getScheme())) {
            throw new IllegalArgumentException("the URL must be http:// or https://, got " + base);
        }
        this.host = base.getHost();
        this.port = base.getPort() != -1 ? base.getPort() : tls ? 443 : 80;
        this.connectTimeoutMillis = Math.toIntExact(connectTimeout.toMillis());
        this.readTimeoutMillis = Math.toIntExact(readTimeout.toMillis());
    }

    /**
     * Sends {@code POST path} and returns once the status line and headers are read. The caller reads the body
     * with {@link Response#readLine()} and must close the response.
     */
    Response post(String path, Map<String, String> headers, byte[] body) throws IOException {
        Connection pooled = idle.pollFirst();
        if (pooled != null) {
            try {
                return pooled.exchange(path, headers, body);
            } catch (IOException e) {
                pooled.close(); // closed by the server while idle: retry once on a new connection
            }
        }
        Connection fresh = connect();
        try {
            return fresh.exchange(path, headers, body);
        } catch (IOException | RuntimeException e) {
            fresh.close();
            throw e;
        }
    }

    private Connection connect() throws IOException {
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(host, port), connectTimeoutMillis);
            socket.setSoTimeout(readTimeoutMillis);
            if (tls) {
                socket = ((SSLSocketFactory) SSLSocketFactory.getDefault()).createSocket(socket, host, port, true);
            }
            return new Connection(socket);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    @Override
    public void close() {
        Connection connection;
        while ((connection = idle.pollFirst()) != null) {
            connection.close();
        }
    }

    /** A response being read: status, then the body line by line. Not thread-safe. */
    final class Response implements AutoCloseable {
        private final Connection connection;
        private final int status;
        private final boolean keepAlive;
        private final long contentLength;
        private final boolean chunked;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream(512);
        private long chunkLeft;
        private boolean ended;

        private Response(Connection connection, int status, boolean keepAlive, long contentLength, boolean chunked) {
            this.connection = connection;
            this.status = status;
            this.keepAlive = keepAlive;
            this.contentLength = contentLength;
            this.chunked = chunked;
            this.chunkLeft = chunked ? 0 : contentLength;
            this.ended = !chunked && contentLength == 0;
        }

        int status() {
            return status;
        }

        /** The next body line without its line break (UTF-8), or null at the end of the body. */
        String readLine() throws IOException {
            line.reset();
            int b;
            while ((b = readBodyByte()) != -1) {
                if (b == '\n') {
                    return decodeLine();
                }
                line.write(b);
            }
            return line.size() > 0 ? decodeLine() : null;
        }

        private String decodeLine() {
            int length = line.size();
            byte[] bytes = line.toByteArray();
            if (length > 0 && bytes[length - 1] == '\r') {
                length--;
            }
            return new String(bytes, 0, length, StandardCharsets.UTF_8);
        }

        private int readBodyByte() throws IOException {
            if (ended) {
                return -1;
            }
            InputStream in = connection.in;
            if (chunked && chunkLeft == 0) {
                chunkLeft = Long.parseLong(connection.readHeaderLine().split(";", 2)[0].trim(), 16);
                if (chunkLeft == 0) {
                    while (!connection.readHeaderLine().isEmpty()) {
                        // trailers: ignored
                    }
                    ended = true;
                    return -1;
                }
            }
            int b = in.read();
            if (b == -1) {
                if (chunked || contentLength >= 0) {
                    throw new EOFException("the connection closed inside the response body");
                }
                ended = true;
                return -1;
            }
            if (chunked || contentLength >= 0) {
                chunkLeft--;
                if (chunked && chunkLeft == 0 && !connection.readHeaderLine().isEmpty()) {
                    throw new IOException("malformed chunked body: no line break after a chunk");
                }
                if (!chunked && chunkLeft == 0) {
                    ended = true;
                }
            }
            return b;
        }

        /** Returns the connection to the pool if the body was read to its end and the server keeps it open. */
        @Override
        public void close() {
            boolean framed = chunked || contentLength >= 0;
            if (ended && keepAlive && framed) {
                idle.addFirst(connection);
            } else {
                connection.close();
            }
        }
    }

    private final class Connection {
        private final Socket socket;
        private final InputStream in;
        private final OutputStream out;

        Connection(Socket socket) throws IOException {
            this.socket = socket;
            this.in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
            this.out = new BufferedOutputStream(socket.getOutputStream(), 16 * 1024);
        }

        Response exchange(String path, Map<String, String> headers, byte[] body) throws IOException {
            StringBuilder head = new StringBuilder(256)
                    .append("POST ").append(path).append(" HTTP/1.1\r\n")
                    .append("Host: ").append(host).append(':').append(port).append("\r\n")
                    .append("Content-Length: ").append(body.length).append("\r\n");
            headers.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
            out.write(head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1));
            out.write(body);
            out.flush();
            String statusLine = readHeaderLine();
            String[] parts = statusLine.split(" ", 3);
            if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
                throw new IOException("not an HTTP/1.x response: " + statusLine);
            }
            boolean keepAlive = parts[0].equals("HTTP/1.1");
            long contentLength = -1;
            boolean chunked = false;
            String header;
            while (!(header = readHeaderLine()).isEmpty()) {
                int colon = header.indexOf(':');
                if (colon <= 0) {
                    continue;
                }
                String name = header.substring(0, colon).trim().toLowerCase(Locale.ROOT);
                String value = header.substring(colon + 1).trim();
                switch (name) {
                    case "content-length" -> contentLength = Long.parseLong(value);
                    case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                    case "connection" -> keepAlive = !value.equalsIgnoreCase("close");
                    default -> { }
                }
            }
            return new Response(this, Integer.parseInt(parts[1]), keepAlive, chunked ? -1 : contentLength, chunked);
        }

        /** A header or chunk-size line, ISO-8859-1, without CR LF. */
        String readHeaderLine() throws IOException {
            StringBuilder text = new StringBuilder(64);
            int b;
            while ((b = in.read()) != -1) {
                if (b == '\n') {
                    int length = text.length();
                    return length > 0 && text.charAt(length - 1) == '\r' ? text.substring(0, length - 1) : text.toString();
                }
                text.append((char) b);
            }
            throw new EOFException("the connection closed");
        }

        void close() {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }
}

package io.squall.cli.model;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Downloads one file into {@code part}: a {@code HEAD} that follows every redirect reads what the servers publish
 * ({@link RemoteFile}); a {@code GET} of the final location then appends to what an earlier, interrupted run left
 * ({@code Range: bytes=N-}) when the file is still the same version, or starts over. A body cut short is resumed
 * the same way, up to {@value #ATTEMPTS} attempts. The result is checked against the published size and SHA-256.
 *
 * <p>The hub's token ({@code HF_TOKEN}) goes only to the hub's own host, never to the CDN it redirects to, whose
 * URLs are signed. Not thread-safe; {@link ModelStore} runs one download per file at a time.
 */
final class HttpDownload {

    static final int ATTEMPTS = 4;
    private static final int MAX_REDIRECTS = 10;
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    /** Why a download failed, for the one-line message. */
    static final class Failure extends IllegalStateException {
        Failure(String message) {
            super(message);
        }
    }

    /** The server could not be reached: nothing is known about the file. */
    static final class Unreachable extends IOException {
        Unreachable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final HttpClient http;
    private final String tokenHost;
    private final String token;
    private final PrintStream progressOut;
    private final boolean terminal;

    /** @param token sent as a bearer token to {@code tokenHost} only; may be null */
    HttpDownload(HttpClient http, String tokenHost, String token, PrintStream progressOut, boolean terminal) {
        this.http = Objects.requireNonNull(http, "http");
        this.tokenHost = tokenHost;
        this.token = token;
        this.progressOut = Objects.requireNonNull(progressOut, "progressOut");
        this.terminal = terminal;
    }

    /**
     * Brings {@code spec}'s bytes into {@code part}, complete and verified; {@code meta} remembers which version a
     * partial download is of.
     *
     * @throws Unreachable when the server cannot be reached at all
     * @throws Failure when the server answers with an error or the bytes do not match what it published
     */
    void fetch(ModelSpec.Download spec, Path part, Path meta) throws IOException, InterruptedException {
        RemoteFile remote = head(spec);
        long have = resumable(part, meta, remote);
        Files.writeString(meta, remote.validator() == null ? "" : remote.validator());
        MessageDigest sha = sha256();
        if (have > 0) {
            digest(part, sha);
        }
        DownloadProgress progress = new DownloadProgress(progressOut, spec.fileName(), remote.size(), have, terminal);
        IOException last = null;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            last = null;
            try {
                have = get(remote.location(), part, have, sha, progress);
            } catch (Unreachable e) {
                throw e;
            } catch (IOException e) {
                last = e; // a body cut short: the next attempt resumes from what arrived
                have = Files.size(part);
            }
            if (last == null && (remote.size() < 0 || have >= remote.size())) {
                break;
            }
        }
        progress.finish();
        if (last != null || remote.size() >= 0 && have < remote.size()) {
            throw new Failure("the download of " + spec + " broke off at " + DownloadProgress.bytes(have)
                    + (remote.size() >= 0 ? " of " + DownloadProgress.bytes(remote.size()) : "") + " after " + ATTEMPTS
                    + " attempts" + (last == null ? "" : " (" + last.getMessage() + ")") + "; run the command again to resume");
        }
        verify(spec, part, meta, remote, have, HexFormat.of().formatHex(sha.digest()));
    }

    private static void verify(ModelSpec.Download spec, Path part, Path meta, RemoteFile remote, long have, String sha)
            throws IOException {
        String problem = null;
        if (remote.size() >= 0 && have != remote.size()) {
            problem = "it has " + have + " bytes where the server published " + remote.size();
        } else if (remote.sha256() != null && !remote.sha256().equals(sha)) {
            problem = "its SHA-256 is " + sha + " where the hub published " + remote.sha256();
        }
        if (problem != null) {
            Files.deleteIfExists(part);
            Files.deleteIfExists(meta);
            throw new Failure("the download of " + spec + " is corrupt: " + problem
                    + "; it was discarded, run the command again to download it afresh");
        }
    }

    /** Bytes of {@code part} that can be kept: all of them when it holds the same version, else none. */
    private static long resumable(Path part, Path meta, RemoteFile remote) throws IOException {
        if (!Files.exists(part)) {
            return 0;
        }
        String kept = Files.exists(meta) ? Files.readString(meta).strip() : "";
        long size = Files.size(part);
        if (remote.validator() == null || !remote.validator().equals(kept) || remote.size() >= 0 && size > remote.size()) {
            Files.delete(part);
            return 0;
        }
        return size;
    }

    /** HEAD along the redirect chain: what the servers publish about the file, and where its bytes are. */
    private RemoteFile head(ModelSpec.Download spec) throws IOException, InterruptedException {
        List<HttpHeaders> hops = new ArrayList<>();
        URI url = spec.url();
        for (int hop = 0; hop <= MAX_REDIRECTS; hop++) {
            HttpResponse<Void> response = send(request(url).method("HEAD", HttpRequest.BodyPublishers.noBody()).build(),
                    HttpResponse.BodyHandlers.discarding());
            hops.add(response.headers());
            int status = response.statusCode();
            Optional<String> location = response.headers().firstValue("Location");
            if (status >= 300 && status < 400 && location.isPresent()) {
                url = url.resolve(location.get());
                continue;
            }
            if (status == 200) {
                return RemoteFile.from(hops, url);
            }
            throw new Failure(refusal(spec, status));
        }
        throw new Failure(spec + " redirects more than " + MAX_REDIRECTS + " times");
    }

    /** GETs the bytes from {@code have} on into {@code part}; returns the bytes it then holds. */
    private long get(URI location, Path part, long have, MessageDigest sha, DownloadProgress progress)
            throws IOException, InterruptedException {
        URI url = location;
        for (int hop = 0; hop <= MAX_REDIRECTS; hop++) {
            HttpRequest.Builder request = request(url).GET();
            if (have > 0) {
                request.header("Range", "bytes=" + have + "-");
            }
            HttpResponse<InputStream> response = send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
            int status = response.statusCode();
            Optional<String> redirect = response.headers().firstValue("Location");
            if (status >= 300 && status < 400 && redirect.isPresent()) {
                response.body().close();
                url = url.resolve(redirect.get());
                continue;
            }
            boolean appending = status == 206 && response.headers().firstValue("Content-Range")
                    .filter(range -> range.startsWith("bytes " + have + "-")).isPresent();
            if (status != 200 && !appending) {
                response.body().close();
                throw new Failure("the server answered " + status + " to a download of " + url.getHost());
            }
            if (!appending && have > 0) { // the server sent the whole file again
                sha.reset();
                progress.advance(-have);
            }
            long written = appending ? have : 0;
            try (InputStream in = response.body();
                 OutputStream out = Files.newOutputStream(part, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                         appending ? StandardOpenOption.APPEND : StandardOpenOption.TRUNCATE_EXISTING)) {
                byte[] buffer = new byte[1 << 16];
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    out.write(buffer, 0, n);
                    sha.update(buffer, 0, n);
                    written += n;
                    progress.advance(n);
                }
            }
            return written;
        }
        throw new Failure(url.getHost() + " redirects more than " + MAX_REDIRECTS + " times");
    }

    private HttpRequest.Builder request(URI url) {
        HttpRequest.Builder request = HttpRequest.newBuilder(url).timeout(REQUEST_TIMEOUT)
                .header("User-Agent", "squall")
                .header("Accept-Encoding", "identity");
        if (token != null && url.getHost() != null && url.getHost().equalsIgnoreCase(tokenHost)) {
            request.header("Authorization", "Bearer " + token);
        }
        return request;
    }

    private <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> body)
            throws IOException, InterruptedException {
        try {
            return http.send(request, body);
        } catch (ConnectException | HttpConnectTimeoutException e) {
            throw new Unreachable(request.uri().getHost() + " cannot be reached (" + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")", e);
        }
    }

    private static String refusal(ModelSpec.Download spec, int status) {
        return switch (status) {
            case 404 -> spec + " was not found (404): check the owner, repository, revision and file name";
            case 401, 403 -> spec + " needs authorisation (" + status + "): for a gated or private model on the hub, "
                    + "accept its terms there and set HF_TOKEN to an access token";
            default -> "the server answered " + status + " for " + spec;
        };
    }

    private static void digest(Path file, MessageDigest sha) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] buffer = new byte[1 << 16];
            for (int n; (n = in.read(buffer)) >= 0; ) {
                sha.update(buffer, 0, n);
            }
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JDK has no SHA-256", e);
        }
    }
}

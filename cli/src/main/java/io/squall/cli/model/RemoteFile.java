package io.squall.cli.model;

import java.net.URI;
import java.net.http.HttpHeaders;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What a server says about a file before it is downloaded, read the way Hugging Face's own client reads it: the
 * hub's answer on a {@code resolve} URL carries the LFS file's SHA-256 as {@code X-Linked-Etag} (or as the
 * {@code ETag} itself) and its size as {@code X-Linked-Size}, and redirects to a CDN that serves the bytes.
 *
 * @param location where the bytes are served, after every redirect
 * @param size bytes, or -1 when no server said
 * @param sha256 the published SHA-256 (64 lower-case hex digits), or {@code null} when none was published
 * @param validator what identifies this version of the file (the SHA-256, else the {@code ETag}, else
 *     {@code Last-Modified}), or {@code null}: a partial download is resumed only under the same validator
 */
record RemoteFile(URI location, long size, String sha256, String validator) {

    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");

    /** The file as the hops of one redirect chain describe it: the first hop that publishes a value wins. */
    static RemoteFile from(Iterable<HttpHeaders> hops, URI location) {
        long size = -1;
        String sha256 = null;
        String etag = null;
        String lastModified = null;
        long finalLength = -1;
        for (HttpHeaders headers : hops) {
            if (sha256 == null) {
                sha256 = sha256(headers.firstValue("X-Linked-Etag"))
                        .or(() -> sha256(headers.firstValue("ETag"))).orElse(null);
            }
            if (size < 0) {
                size = headers.firstValueAsLong("X-Linked-Size").orElse(-1);
            }
            etag = headers.firstValue("ETag").map(RemoteFile::unquote).orElse(etag);
            lastModified = headers.firstValue("Last-Modified").orElse(lastModified);
            finalLength = headers.firstValueAsLong("Content-Length").orElse(finalLength);
        }
        long known = size >= 0 ? size : finalLength;
        String validator = sha256 != null ? sha256 : etag != null ? etag : lastModified;
        return new RemoteFile(location, known, sha256, validator);
    }

    /** The SHA-256 in an entity tag such as {@code "5f0c..."} or {@code W/"5f0c..."}, if it is one. */
    private static Optional<String> sha256(Optional<String> etag) {
        return etag.map(RemoteFile::unquote).map(s -> s.toLowerCase(Locale.ROOT)).filter(s -> SHA256.matcher(s).matches());
    }

    private static String unquote(String etag) {
        String tag = etag.strip();
        if (tag.startsWith("W/")) {
            tag = tag.substring(2);
        }
        if (tag.length() >= 2 && tag.startsWith("\"") && tag.endsWith("\"")) {
            tag = tag.substring(1, tag.length() - 1);
        }
        return tag;
    }
}

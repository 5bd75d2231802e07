package io.squall.functions.api.auth;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The secret every stage of one cluster shares, or none (an open cluster, the developer default). The secret
 * itself is never kept, sent or logged: what is kept are keys derived from it by HMAC-SHA256 with a fixed label,
 * one per use, so a key that leaks from one use says nothing about the secret or the other key:
 * <ul>
 *   <li>the <b>setup key</b> signs and checks the proof a stage sends in its RSocket SETUP frame
 *       ({@link SetupProof}, checked by {@link SetupVerifier});</li>
 *   <li>the <b>grid digest</b> suffixes the Hazelcast cluster name ({@link #clusterName(String)}), so a member
 *       started without the secret asks to join another cluster and is refused.</li>
 * </ul>
 *
 * <p>Immutable and thread-safe; {@link #toString()} says only whether the cluster is closed.
 */
public final class ClusterSecret {

    /** Fewest bytes a secret may have (128 bits). */
    public static final int MIN_BYTES = 16;
    /** Most bytes read from a secret file. */
    public static final int MAX_BYTES = 4096;
    static final String MAC = "HmacSHA256";
    private static final byte[] SETUP_LABEL = "squall/rsocket-setup/v1".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] GRID_LABEL = "squall/hazelcast-cluster-name/v1".getBytes(StandardCharsets.US_ASCII);
    private static final ClusterSecret OPEN = new ClusterSecret(null, null);

    private final SecretKeySpec setupKey;
    private final String gridDigest;

    private ClusterSecret(SecretKeySpec setupKey, String gridDigest) {
        this.setupKey = setupKey;
        this.gridDigest = gridDigest;
    }

    /** No secret: every connection is accepted and the cluster name is used as given. */
    public static ClusterSecret open() {
        return OPEN;
    }

    /**
     * The secret {@code secret} (copied, then only its derived keys are kept).
     *
     * @throws IllegalArgumentException if it has fewer than {@value #MIN_BYTES} or more than {@value #MAX_BYTES} bytes
     */
    public static ClusterSecret of(byte[] secret) {
        Objects.requireNonNull(secret, "secret");
        if (secret.length < MIN_BYTES || secret.length > MAX_BYTES) {
            throw new IllegalArgumentException("a cluster secret has " + MIN_BYTES + " to " + MAX_BYTES + " bytes, got "
                    + secret.length + " (make one with: openssl rand -base64 32)");
        }
        byte[] setup = hmac(secret, SETUP_LABEL);
        byte[] grid = hmac(secret, GRID_LABEL);
        return new ClusterSecret(new SecretKeySpec(setup, MAC), HexFormat.of().formatHex(grid, 0, 16));
    }

    /**
     * Reads the secret from {@code file}: its bytes without trailing whitespace (so a file written by
     * {@code echo} or a Kubernetes Secret with a final newline gives the same secret as one without).
     *
     * @throws IllegalArgumentException if the file cannot be read or the secret is too short or too long
     */
    public static ClusterSecret read(Path file) {
        Objects.requireNonNull(file, "file");
        byte[] bytes;
        try {
            if (Files.size(file) > MAX_BYTES + 64) {
                throw new IllegalArgumentException("cluster secret file " + file + " is larger than " + MAX_BYTES + " bytes");
            }
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the cluster secret file " + file + ": " + e, e);
        }
        int end = bytes.length;
        while (end > 0 && Character.isWhitespace(bytes[end - 1])) {
            end--;
        }
        byte[] secret = Arrays.copyOf(bytes, end);
        Arrays.fill(bytes, (byte) 0);
        try {
            return of(secret);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("cluster secret file " + file + ": " + e.getMessage(), e);
        } finally {
            Arrays.fill(secret, (byte) 0);
        }
    }

    /** Whether there is no secret: connections are not authenticated. */
    public boolean isOpen() {
        return setupKey == null;
    }

    /**
     * The Hazelcast cluster name for a cluster called {@code base}: {@code base} itself when open, else
     * {@code base} followed by a digest of the secret (32 hex digits), which only holders of the secret can compute.
     */
    public String clusterName(String base) {
        Objects.requireNonNull(base, "base");
        return isOpen() ? base : base + "-" + gridDigest;
    }

    /** HMAC-SHA256 of {@code message} under the setup key. */
    byte[] signSetup(byte[] message) {
        if (isOpen()) {
            throw new IllegalStateException("an open cluster has no setup key");
        }
        try {
            Mac mac = Mac.getInstance(MAC);
            mac.init(setupKey);
            return mac.doFinal(message);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is unavailable", e);
        }
    }

    private static byte[] hmac(byte[] key, byte[] message) {
        try {
            Mac mac = Mac.getInstance(MAC);
            mac.init(new SecretKeySpec(key, MAC));
            return mac.doFinal(message);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is unavailable", e);
        }
    }

    @Override
    public String toString() {
        return isOpen() ? "ClusterSecret[open]" : "ClusterSecret[closed]";
    }
}

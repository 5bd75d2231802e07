package io.squall.functions.api.auth;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Objects;

/**
 * The proof of holding the {@link ClusterSecret} that a stage puts in the SETUP frame of each RSocket connection
 * it opens to another stage, as authentication metadata ({@code message/x.rsocket.authentication.v0}) of the
 * custom type {@value #AUTH_TYPE}. It is {@value #BYTES} bytes: {@code u8 version} (1), {@code i64 issuedAt}
 * (Unix milliseconds, little-endian), 16 random bytes of nonce, and the HMAC-SHA256 under the secret's setup key of
 * the label {@code "squall setup proof v1"} followed by the first 25 bytes. The secret never travels; a proof is
 * good once (the responder remembers nonces) and only near the time it was issued (see {@link SetupVerifier}).
 *
 * <p>Stateless and thread-safe.
 */
public final class SetupProof {

    /** The custom authentication type of the proof in the SETUP frame's authentication metadata. */
    public static final String AUTH_TYPE = "squall-hmac-v1";
    /** The proof's version byte. */
    public static final int VERSION = 1;
    /** Bytes of nonce. */
    public static final int NONCE_BYTES = 16;
    /** Bytes of the signed part: version, issue time, nonce. */
    static final int SIGNED_BYTES = 1 + Long.BYTES + NONCE_BYTES;
    /** Bytes of a whole proof. */
    public static final int BYTES = SIGNED_BYTES + 32;
    private static final byte[] LABEL = "squall setup proof v1".getBytes(StandardCharsets.US_ASCII);
    private static final SecureRandom RANDOM = new SecureRandom();

    private SetupProof() {
    }

    /** A fresh proof issued now, with a random nonce. */
    public static byte[] create(ClusterSecret secret) {
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        return create(secret, System.currentTimeMillis(), nonce);
    }

    /** The proof issued at {@code issuedAtMillis} with {@code nonce} ({@value #NONCE_BYTES} bytes). */
    public static byte[] create(ClusterSecret secret, long issuedAtMillis, byte[] nonce) {
        Objects.requireNonNull(secret, "secret");
        if (nonce.length != NONCE_BYTES) {
            throw new IllegalArgumentException("a nonce has " + NONCE_BYTES + " bytes");
        }
        ByteBuffer proof = ByteBuffer.allocate(BYTES).order(ByteOrder.LITTLE_ENDIAN)
                .put((byte) VERSION).putLong(issuedAtMillis).put(nonce);
        byte[] signed = Arrays.copyOf(proof.array(), SIGNED_BYTES);
        proof.put(secret.signSetup(labelled(signed)));
        return proof.array();
    }

    /** The MAC {@code proof} should carry for its first {@link #SIGNED_BYTES} bytes. */
    static byte[] expectedMac(ClusterSecret secret, byte[] proof) {
        return secret.signSetup(labelled(Arrays.copyOf(proof, SIGNED_BYTES)));
    }

    private static byte[] labelled(byte[] signed) {
        byte[] message = Arrays.copyOf(LABEL, LABEL.length + signed.length);
        System.arraycopy(signed, 0, message, LABEL.length, signed.length);
        return message;
    }
}

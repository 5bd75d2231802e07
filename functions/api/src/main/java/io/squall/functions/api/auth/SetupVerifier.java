package io.squall.functions.api.auth;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Checks the {@link SetupProof}s of the connections a stage accepts: a proof passes when its MAC is the one the
 * cluster's secret gives (compared in constant time), it was issued within {@code window} of this stage's clock
 * (either way, for clock skew), and its nonce was not seen before within that window (so a recorded SETUP cannot
 * be replayed). The verdict is a {@link Rejection}, or {@code null} for a pass.
 *
 * <p>Nonces are remembered for {@code 2 × window} and forgotten after; at most {@value #MAX_NONCES} are held (only
 * valid proofs add one, so only holders of the secret can fill the set; when full, new proofs are refused as
 * replays until old nonces expire). An open cluster's verifier passes everything. Thread-safe.
 */
public final class SetupVerifier {

    /** Most nonces remembered at once. */
    static final int MAX_NONCES = 1 << 16;

    /** Why a connection was refused; the names are the {@code reason} label of the rejection metric. */
    public enum Rejection {
        /** The SETUP frame carried no proof (no authentication metadata of type {@value SetupProof#AUTH_TYPE}). */
        MISSING("no cluster credentials in the SETUP frame"),
        /** Authentication metadata that is not a proof of this version. */
        MALFORMED("malformed cluster credentials"),
        /** A proof signed with another secret. */
        BAD_PROOF("cluster credentials signed with another secret"),
        /** A proof issued outside the window (an old recording, or clocks too far apart). */
        STALE("cluster credentials issued too far from this stage's clock"),
        /** A proof whose nonce was already used. */
        REPLAYED("cluster credentials already used");

        private final String message;

        Rejection(String message) {
            this.message = message;
        }

        /** A sentence for the log and the REJECTED_SETUP error frame (names no secret). */
        public String message() {
            return message;
        }

        /** The metric label. */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private final ClusterSecret secret;
    private final long windowMillis;
    private final LongSupplier clock;
    private final Map<Nonce, Long> seen = new ConcurrentHashMap<>();

    /**
     * @param window how far a proof's issue time may be from this stage's clock, &gt; 0
     * @param clock Unix milliseconds
     */
    public SetupVerifier(ClusterSecret secret, Duration window, LongSupplier clock) {
        this.secret = Objects.requireNonNull(secret, "secret");
        this.clock = Objects.requireNonNull(clock, "clock");
        if (window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("window must be positive");
        }
        this.windowMillis = window.toMillis();
    }

    /** Whether every connection passes (no secret). */
    public boolean open() {
        return secret.isOpen();
    }

    /**
     * The verdict on {@code proof} (the authentication payload of a SETUP frame, or {@code null} when it had none):
     * {@code null} when it passes.
     */
    public Rejection verify(byte[] proof) {
        if (secret.isOpen()) {
            return null;
        }
        if (proof == null) {
            return Rejection.MISSING;
        }
        if (proof.length != SetupProof.BYTES || proof[0] != SetupProof.VERSION) {
            return Rejection.MALFORMED;
        }
        byte[] mac = Arrays.copyOfRange(proof, SetupProof.SIGNED_BYTES, SetupProof.BYTES);
        if (!MessageDigest.isEqual(mac, SetupProof.expectedMac(secret, proof))) {
            return Rejection.BAD_PROOF;
        }
        long now = clock.getAsLong();
        long issued = ByteBuffer.wrap(proof, 1, Long.BYTES).order(ByteOrder.LITTLE_ENDIAN).getLong();
        if (Math.abs(now - issued) > windowMillis) {
            return Rejection.STALE;
        }
        forgetExpired(now);
        if (seen.size() >= MAX_NONCES) {
            return Rejection.REPLAYED;
        }
        Nonce nonce = new Nonce(Arrays.copyOfRange(proof, 1 + Long.BYTES, SetupProof.SIGNED_BYTES));
        return seen.putIfAbsent(nonce, now + 2 * windowMillis) == null ? null : Rejection.REPLAYED;
    }

    private void forgetExpired(long now) {
        for (Iterator<Long> expiries = seen.values().iterator(); expiries.hasNext(); ) {
            if (expiries.next() < now) {
                expiries.remove();
            }
        }
    }

    /** A nonce as a map key (arrays compare by identity). */
    private record Nonce(byte[] bytes) {
        @Override
        public boolean equals(Object other) {
            return other instanceof Nonce nonce && Arrays.equals(bytes, nonce.bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }
    }
}

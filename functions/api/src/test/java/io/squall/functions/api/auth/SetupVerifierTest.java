package io.squall.functions.api.auth;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class SetupVerifierTest {

    private static final ClusterSecret SECRET = ClusterSecret.of("correct horse battery staple".getBytes(StandardCharsets.UTF_8));
    private static final ClusterSecret OTHER = ClusterSecret.of("another cluster's secret!".getBytes(StandardCharsets.UTF_8));
    private static final Duration WINDOW = Duration.ofMinutes(5);

    private final AtomicLong now = new AtomicLong(1_800_000_000_000L);
    private final SetupVerifier verifier = new SetupVerifier(SECRET, WINDOW, now::get);

    private byte[] proof(ClusterSecret secret, long issuedAt, int nonceSeed) {
        byte[] nonce = new byte[SetupProof.NONCE_BYTES];
        nonce[0] = (byte) nonceSeed;
        nonce[1] = (byte) (nonceSeed >> 8);
        return SetupProof.create(secret, issuedAt, nonce);
    }

    @Test
    void aFreshProofOfTheSecretPassesOnce() {
        byte[] proof = proof(SECRET, now.get(), 1);
        assertThat(verifier.verify(proof)).isNull();
        assertThat(verifier.verify(proof)).isEqualTo(SetupVerifier.Rejection.REPLAYED);
        assertThat(verifier.verify(proof(SECRET, now.get(), 100))).as("another nonce").isNull();
    }

    @Test
    void aProofOfAnotherSecretIsRefused() {
        assertThat(verifier.verify(proof(OTHER, now.get(), 2))).isEqualTo(SetupVerifier.Rejection.BAD_PROOF);
    }

    @Test
    void anyChangedByteMakesTheProofBad() {
        byte[] proof = proof(SECRET, now.get(), 3);
        for (int i = 1; i < proof.length; i++) {
            byte[] changed = proof.clone();
            changed[i] ^= 0x10;
            assertThat(verifier.verify(changed)).as("byte %d changed", i).isEqualTo(SetupVerifier.Rejection.BAD_PROOF);
        }
        byte[] version = proof.clone();
        version[0] = 2;
        assertThat(verifier.verify(version)).isEqualTo(SetupVerifier.Rejection.MALFORMED);
    }

    @Test
    void proofsFarFromTheClockAreStaleEitherWay() {
        long window = WINDOW.toMillis();
        assertThat(verifier.verify(proof(SECRET, now.get() - window - 1, 4))).isEqualTo(SetupVerifier.Rejection.STALE);
        assertThat(verifier.verify(proof(SECRET, now.get() + window + 1, 5))).isEqualTo(SetupVerifier.Rejection.STALE);
        assertThat(verifier.verify(proof(SECRET, now.get() - window, 6))).isNull();
        assertThat(verifier.verify(proof(SECRET, now.get() + window, 7))).isNull();
    }

    @Test
    void aReplayAfterTheWindowIsStaleAndTheNonceIsForgotten() {
        byte[] proof = proof(SECRET, now.get(), 8);
        assertThat(verifier.verify(proof)).isNull();
        now.addAndGet(WINDOW.toMillis() + 1);
        assertThat(verifier.verify(proof)).isEqualTo(SetupVerifier.Rejection.STALE);
    }

    @Test
    void missingAndMalformedProofsAreRefused() {
        assertThat(verifier.verify(null)).isEqualTo(SetupVerifier.Rejection.MISSING);
        assertThat(verifier.verify(new byte[0])).isEqualTo(SetupVerifier.Rejection.MALFORMED);
        assertThat(verifier.verify(new byte[SetupProof.BYTES + 1])).isEqualTo(SetupVerifier.Rejection.MALFORMED);
    }

    @Test
    void anOpenClusterPassesEverything() {
        SetupVerifier open = new SetupVerifier(ClusterSecret.open(), WINDOW, now::get);
        assertThat(open.open()).isTrue();
        assertThat(open.verify(null)).isNull();
        assertThat(open.verify(new byte[3])).isNull();
    }
}

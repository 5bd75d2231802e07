package io.squall.kvgrid.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.squall.kvgrid.Tier;
import io.squall.kvgrid.WorkerId;
import io.squall.kvgrid.hash.BlockChain;
import io.squall.kvgrid.hash.BlockHasher;
import io.squall.kvgrid.index.flat.FlatRadixIndex;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ApproximateIndexTest {

    private static final WorkerId A = new WorkerId(1);
    private static final WorkerId B = new WorkerId(2);
    private static final BlockHasher HASHER = BlockHasher.of(4);

    /** A clock the test moves by hand. */
    private static final class FakeClock implements InstantSource {
        private Instant now = Instant.parse("2026-01-01T00:00:00Z");

        @Override
        public Instant instant() {
            return now;
        }

        void advance(Duration step) {
            now = now.plus(step);
        }
    }

    private FakeClock clock;
    private ApproximateIndex index;

    @BeforeEach
    void setUp() {
        clock = new FakeClock();
        index = new ApproximateIndex(new FlatRadixIndex(), Duration.ofSeconds(120), clock);
    }

    private static BlockChain tokens(int first, int count) {
        int[] tokens = new int[count];
        Arrays.setAll(tokens, i -> first + i);
        return HASHER.hash(tokens);
    }

    @Test
    void routedBlocksMatchInG1UntilTheTtlEnds() {
        BlockChain prompt = tokens(0, 4 * 5 + 2);
        index.recordRouting(A, prompt);

        clock.advance(Duration.ofMillis(119_999));
        OverlapScores live = index.findMatches(prompt.hashes());
        clock.advance(Duration.ofMillis(1));
        OverlapScores expired = index.findMatches(prompt.hashes());

        assertThat(live.deviceBlocks(A)).isEqualTo(5);
        assertThat(live.blocks(A, Tier.G4)).isEqualTo(5);
        assertThat(expired.workers()).isEmpty();
    }

    @Test
    void routingAgainRefreshesTheSharedPrefixOnly() {
        BlockChain first = tokens(0, 4 * 6);
        int[] sharedThenOther = new int[4 * 6];
        Arrays.setAll(sharedThenOther, i -> i < 8 ? i : 1000 + i);
        BlockChain second = HASHER.hash(sharedThenOther);
        index.recordRouting(A, first);
        clock.advance(Duration.ofSeconds(100));
        index.recordRouting(A, second);

        clock.advance(Duration.ofSeconds(30));

        assertThat(index.findMatches(first.hashes()).deviceBlocks(A)).as("the unshared suffix expired").isEqualTo(2);
        assertThat(index.findMatches(second.hashes()).deviceBlocks(A)).isEqualTo(6);
        clock.advance(Duration.ofSeconds(90));
        assertThat(index.findMatches(second.hashes()).workers()).isEmpty();
    }

    @Test
    void workersExpireIndependently() {
        BlockChain prompt = tokens(0, 4 * 3);
        index.recordRouting(A, prompt);
        clock.advance(Duration.ofSeconds(60));
        index.recordRouting(B, prompt);

        clock.advance(Duration.ofSeconds(61));

        assertThat(index.expire()).isEqualTo(3);
        assertThat(index.findMatches(prompt.hashes()).workers()).containsExactly(B);
    }

    @Test
    void removedWorkerIsForgottenAndMayBeRoutedToAgain() {
        BlockChain prompt = tokens(0, 4 * 3);
        index.recordRouting(A, prompt);

        index.removeWorker(A);
        assertThat(index.findMatches(prompt.hashes()).workers()).isEmpty();

        index.recordRouting(A, prompt);
        assertThat(index.findMatches(prompt.hashes()).deviceBlocks(A)).isEqualTo(3);
        clock.advance(Duration.ofSeconds(120));
        assertThat(index.expire()).isEqualTo(3);
    }

    @Test
    void rejectsTtlBelowOneMillisecond() {
        assertThatThrownBy(() -> new ApproximateIndex(new FlatRadixIndex(), Duration.ofNanos(10), clock))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("approximate index TTL must be at least one millisecond");
    }
}

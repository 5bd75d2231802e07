package io.squall.kvgrid.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.squall.kvgrid.Tier;
import io.squall.kvgrid.WorkerId;
import org.junit.jupiter.api.Test;

class OverlapScoresTest {

    private static final WorkerId A = new WorkerId(1);
    private static final WorkerId B = new WorkerId(2);

    @Test
    void aReusedBuilderLeavesEarlierAnswersAlone() {
        OverlapScores.Builder builder = OverlapScores.builder(8);
        OverlapScores first = builder.depths(A, new int[] {2, 3, 3, 4}, 0).depth(B, Tier.G4, 8).build();

        OverlapScores second = builder.reset(5).depth(B, Tier.G1, 1).depth(B, Tier.G2, 1).depth(B, Tier.G3, 1).depth(B, Tier.G4, 1).build();

        assertThat(first.promptBlocks()).isEqualTo(8);
        assertThat(first.workers()).containsExactlyInAnyOrder(A, B);
        assertThat(first.blocks(A, Tier.G2)).isEqualTo(3);
        assertThat(first.blocks(B, Tier.G4)).isEqualTo(8);
        assertThat(second.promptBlocks()).isEqualTo(5);
        assertThat(second.workers()).containsExactly(B);
        assertThat(second.blocks(A, Tier.G4)).isZero();
        assertThat(second.blocks(B, Tier.G1)).isEqualTo(1);
    }

    @Test
    void workersWithoutBlocksAreLeftOut() {
        OverlapScores scores = OverlapScores.builder(4).depths(A, new int[] {9, 0, 0, 0, 0}, 1).depth(B, Tier.G1, 0).build();

        assertThat(scores.size()).isZero();
        assertThat(scores).isEqualTo(OverlapScores.none(4));
    }

    @Test
    void indexedAccessMatchesLookupByWorker() {
        OverlapScores scores = OverlapScores.builder(6).depths(B, new int[] {1, 2, 3, 4}, 0).depths(A, new int[] {6, 6, 6, 6}, 0).build();

        assertThat(scores.size()).isEqualTo(2);
        for (int i = 0; i < scores.size(); i++) {
            for (Tier tier : Tier.values()) {
                assertThat(scores.blocks(i, tier)).isEqualTo(scores.blocks(scores.worker(i), tier));
            }
        }
    }

    @Test
    void equalityIgnoresTheOrderOfWorkers() {
        OverlapScores ab = OverlapScores.builder(6).depths(A, new int[] {1, 1, 1, 1}, 0).depths(B, new int[] {2, 2, 2, 2}, 0).build();
        OverlapScores ba = OverlapScores.builder(6).depths(B, new int[] {2, 2, 2, 2}, 0).depths(A, new int[] {1, 1, 1, 1}, 0).build();
        OverlapScores other = OverlapScores.builder(6).depths(B, new int[] {2, 2, 2, 3}, 0).depths(A, new int[] {1, 1, 1, 1}, 0).build();

        assertThat(ab).isEqualTo(ba).hasSameHashCodeAs(ba).isNotEqualTo(other);
    }

    @Test
    void rejectsDepthsOutsideThePromptOrDecreasingTowardsSlowerTiers() {
        assertThatThrownBy(() -> OverlapScores.builder(3).depth(A, Tier.G1, 4))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> OverlapScores.builder(3).depths(A, new int[] {2, 1, 1, 1}, 0).build())
                .isInstanceOf(IllegalStateException.class);
    }
}

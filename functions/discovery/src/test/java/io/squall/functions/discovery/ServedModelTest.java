package io.squall.functions.discovery;

import io.squall.kvgrid.hash.BlockHasher;
import org.junit.jupiter.api.Test;

import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ServedModelTest {

    private static final int[] PROMPT = IntStream.range(0, 64).toArray();

    @Test
    void aModelsBlocksAreHashedWithItsBlockSizeAndSaltedByItsName() {
        ServedModel model = ServedModel.of("stories260K", 512, 16);

        assertThat(model.hashSalt()).isEqualTo("stories260K");
        assertThat(model.blockHasher().hash(PROMPT).hashes())
                .hasSize(4)
                .isEqualTo(BlockHasher.salted(16, "stories260K").hash(PROMPT).hashes())
                .isNotEqualTo(BlockHasher.of(16).hash(PROMPT).hashes());
        assertThat(model.blocksFor(33)).isEqualTo(3);
    }

    @Test
    void kvMovesOnlyBetweenWorkersWhoseBlocksMeanTheSame() {
        ServedModel model = ServedModel.of("m", 512, 16);

        assertThat(model.sharesKvWith(ServedModel.of("m", 4096, 16))).as("another context").isTrue();
        assertThat(model.sharesKvWith(ServedModel.of("m", 512, 32))).as("another block size").isFalse();
        assertThat(model.sharesKvWith(ServedModel.of("n", 512, 16))).as("another model").isFalse();
        assertThat(model.sharesKvWith(new ServedModel("m", 512, 16, "lora-a"))).as("another salt").isFalse();
    }

    @Test
    void limitsOutOfRangeAreRefused() {
        assertThatThrownBy(() -> ServedModel.of("m", 1, 16)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ServedModel.of("m", 512, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ServedModel.of(" ", 512, 16)).isInstanceOf(IllegalArgumentException.class);
    }
}

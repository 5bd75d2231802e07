package io.squall.functions.engine.sampling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SamplingParamsTest {

    @Test
    void builderStartsFromOpenAiDefaults() {
        SamplingParams params = SamplingParams.builder().build();
        assertThat(params.temperature()).isEqualTo(1.0);
        assertThat(params.topK()).isZero();
        assertThat(params.topP()).isEqualTo(1.0);
        assertThat(params.minP()).isZero();
        assertThat(params.seed()).isNull();
        assertThat(params.hasPenalties()).isFalse();
        assertThat(params.isGreedy()).isFalse();
    }

    @Test
    void greedyHasZeroTemperature() {
        assertThat(SamplingParams.greedy().isGreedy()).isTrue();
    }

    @Test
    void penaltiesNeedANonEmptyWindow() {
        assertThat(SamplingParams.builder().presencePenalty(0.5).build().hasPenalties()).isTrue();
        assertThat(SamplingParams.builder().presencePenalty(0.5).penaltyLastN(0).build().hasPenalties()).isFalse();
    }

    @Test
    void rejectsOutOfRangeValuesNamingTheField() {
        assertThatThrownBy(() -> SamplingParams.builder().temperature(-0.1).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("temperature");
        assertThatThrownBy(() -> SamplingParams.builder().temperature(Double.NaN).build())
                .hasMessageContaining("temperature");
        assertThatThrownBy(() -> SamplingParams.builder().topK(-1).build()).hasMessageContaining("topK");
        assertThatThrownBy(() -> SamplingParams.builder().topP(0).build()).hasMessageContaining("topP");
        assertThatThrownBy(() -> SamplingParams.builder().topP(1.5).build()).hasMessageContaining("topP");
        assertThatThrownBy(() -> SamplingParams.builder().minP(-0.01).build()).hasMessageContaining("minP");
        assertThatThrownBy(() -> SamplingParams.builder().repetitionPenalty(0).build())
                .hasMessageContaining("repetitionPenalty");
        // positive, but 0 as a float: a positive logit divided by it would be +Infinity
        assertThatThrownBy(() -> SamplingParams.builder().repetitionPenalty(1.468e-223).build())
                .hasMessageContaining("repetitionPenalty");
        assertThatThrownBy(() -> SamplingParams.builder().repetitionPenalty(10.5).build())
                .hasMessageContaining("repetitionPenalty");
        assertThat(SamplingParams.builder().repetitionPenalty(0.1).build().repetitionPenalty()).isEqualTo(0.1);
        assertThatThrownBy(() -> SamplingParams.builder().presencePenalty(2.5).build())
                .hasMessageContaining("presencePenalty");
        assertThatThrownBy(() -> SamplingParams.builder().frequencyPenalty(Double.NaN).build())
                .hasMessageContaining("frequencyPenalty");
        assertThatThrownBy(() -> SamplingParams.builder().penaltyLastN(-2).build())
                .hasMessageContaining("penaltyLastN");
    }
}

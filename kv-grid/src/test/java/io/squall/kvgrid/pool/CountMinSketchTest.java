package io.squall.kvgrid.pool;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CountMinSketchTest {

    @Test
    void estimatesNeverUndercountBeforeAgingAndSaturateAt15() {
        CountMinSketch sketch = new CountMinSketch(64);
        for (int i = 0; i < 5; i++) {
            sketch.increment(42);
        }
        assertThat(sketch.estimate(42)).isGreaterThanOrEqualTo(5);
        for (int i = 0; i < 20; i++) {
            sketch.increment(7);
        }
        assertThat(sketch.estimate(7)).isEqualTo(15);
    }

    @Test
    void agingHalvesOldFrequencies() {
        CountMinSketch sketch = new CountMinSketch(16);
        for (int i = 0; i < 12; i++) {
            sketch.increment(1);
        }
        assertThat(sketch.estimate(1)).isEqualTo(12);
        // Width 16 → the sketch ages after 160 increments; key 2 supplies the rest.
        for (int i = 12; i < 160; i++) {
            sketch.increment(2);
        }
        assertThat(sketch.estimate(1)).isEqualTo(6);
        assertThat(sketch.estimate(2)).isEqualTo(7);
    }
}

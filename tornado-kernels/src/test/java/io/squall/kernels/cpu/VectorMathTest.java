package io.squall.kernels.cpu;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lane sum and the exponential give the same bits before and after C2 compiles them, as the same prompt must
 * give the same logits in every process; and they compute what they say.
 */
class VectorMathTest {

    private final long seed = System.nanoTime();
    private final SplittableRandom random = new SplittableRandom(seed);

    @Test
    void theLaneSumIsTheSameInterpretedAndCompiled() {
        for (VectorSpecies<Float> species : new VectorSpecies[] {FloatVector.SPECIES_512, FloatVector.SPECIES_256}) {
            float[][] lanes = new float[32][species.length()];
            float[] first = new float[lanes.length];
            for (int k = 0; k < lanes.length; k++) {
                for (int i = 0; i < species.length(); i++) {
                    lanes[k][i] = (float) (random.nextGaussian() * Math.pow(10, random.nextInt(8))); // sums that round
                }
                first[k] = VectorMath.sum(FloatVector.fromArray(species, lanes[k], 0));
                assertThat((double) first[k]).as("seed %d", seed).isCloseTo(exactSum(lanes[k]),
                        org.assertj.core.api.Assertions.within(1e-6 * magnitude(lanes[k])));
            }
            for (int round = 0; round < 1_000_000; round++) {
                int k = round % lanes.length;
                float later = VectorMath.sum(FloatVector.fromArray(species, lanes[k], 0));
                assertThat(Float.floatToRawIntBits(later)).as("seed %d, %s, vector %d", seed, species, k)
                        .isEqualTo(Float.floatToRawIntBits(first[k]));
            }
        }
    }

    @Test
    void theExponentialIsTheSameInterpretedAndCompiledAndWithinTwoUlp() {
        VectorSpecies<Float> species = Lanes.F;
        float[][] inputs = new float[64][species.length()];
        for (float[] v : inputs) {
            for (int i = 0; i < v.length; i++) {
                v[i] = (float) (random.nextDouble() * 176 - 88);
            }
        }
        float[][] first = new float[inputs.length][species.length()];
        for (int k = 0; k < inputs.length; k++) {
            VectorMath.exp(FloatVector.fromArray(species, inputs[k], 0)).intoArray(first[k], 0);
        }
        float[] later = new float[species.length()];
        for (int round = 0; round < 20_000; round++) {
            int k = round % inputs.length;
            VectorMath.exp(FloatVector.fromArray(species, inputs[k], 0)).intoArray(later, 0);
            for (int i = 0; i < later.length; i++) {
                assertThat(Float.floatToRawIntBits(later[i])).as("seed %d, e^%s", seed, inputs[k][i])
                        .isEqualTo(Float.floatToRawIntBits(first[k][i]));
            }
        }
        for (int k = 0; k < inputs.length; k++) {
            for (int i = 0; i < species.length(); i++) {
                float x = inputs[k][i];
                float expected = (float) Math.exp(x);
                float got = first[k][i];
                if (x < -87.33654f) {
                    assertThat(got).as("e^%s underflows to 0", x).isZero();
                } else if (x <= 88.37626f) {
                    assertThat(Math.abs(got - expected)).as("seed %d, e^%s", seed, x)
                            .isLessThanOrEqualTo(2 * Math.ulp(expected));
                }
            }
        }
    }

    private static double exactSum(float[] lanes) {
        double sum = 0;
        for (float lane : lanes) {
            sum += lane;
        }
        return sum;
    }

    private static double magnitude(float[] lanes) {
        double sum = 0;
        for (float lane : lanes) {
            sum += Math.abs(lane);
        }
        return sum;
    }
}

package io.squall.kernels.cpu;

import jdk.incubator.vector.FloatVector;

import static io.squall.kernels.cpu.Lanes.F;
import static io.squall.kernels.cpu.Lanes.L;

/**
 * Sums of an activation row over blocks of 32 elements, computed once per matmul call and shared by
 * every weight row and thread: the Q4_K dot takes its min terms from them
 * ({@code Σ_c (−dmin·min_s)·x_c = −dmin·min_s·Σx_s}) instead of subtracting per weight.
 */
final class BlockSums {

    /** Elements per block: the Q4_K sub-block. */
    static final int BLOCK = 32;

    private BlockSums() {
    }

    /** {@code sums[b] = Σ x[xo + 32b ..< xo + 32b + 32]} for {@code b < n / 32}; {@code n} a multiple of 32. */
    static void of(float[] x, int xo, int n, float[] sums) {
        for (int b = 0; b < n / BLOCK; b++) {
            FloatVector acc = FloatVector.fromArray(F, x, xo + BLOCK * b);
            for (int j = L; j < BLOCK; j += L) {
                acc = acc.add(FloatVector.fromArray(F, x, xo + BLOCK * b + j));
            }
            sums[b] = VectorMath.sum(acc);
        }
    }
}

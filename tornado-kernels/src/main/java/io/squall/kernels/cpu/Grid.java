package io.squall.kernels.cpu;

import io.squall.kernels.format.IQ4_NLCodec;
import jdk.incubator.vector.IntVector;

import static io.squall.kernels.cpu.Lanes.I;
import static io.squall.kernels.cpu.Lanes.L;

/**
 * The IQ4_NL/IQ4_XS grid as a vector table: {@link #values} maps nibble lanes to
 * {@link IQ4_NLCodec#VALUES} with one permute: a one-table {@code vpermd} with 16 lanes, a two-table
 * {@code vpermi2d}-style select with 8.
 */
final class Grid {

    /** The grid's first {@link Lanes#L} values (all 16 with 16 lanes). */
    private static final IntVector LOW = IntVector.fromArray(I, IQ4_NLCodec.VALUES, 0);
    /** The rest: values 8..15 with 8 lanes; with 16 lanes unused (indexes stay below 16) but set to the same. */
    private static final IntVector HIGH = IntVector.fromArray(I, IQ4_NLCodec.VALUES, 16 - L);

    private Grid() {
    }

    /** {@code VALUES[nibble]} per lane; every lane of {@code nibbles} must lie in 0..15. */
    static IntVector values(IntVector nibbles) {
        return L == 16 ? nibbles.selectFrom(LOW) : nibbles.selectFrom(LOW, HIGH);
    }
}

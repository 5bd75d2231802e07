package io.squall.kernels.cpu;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * The vector species every CPU kernel uses: the preferred float species capped at 512 bits, and the
 * byte, short and int species with the same lane count, so a block of quantized bytes widens to
 * exactly one float vector.
 */
final class Lanes {

    /** Float species: 16 lanes with AVX-512, 8 with AVX2. */
    static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED.length() > 16
            ? FloatVector.SPECIES_512 : FloatVector.SPECIES_PREFERRED;
    /** Float lanes per vector. */
    static final int L = F.length();
    /** Bytes with {@link #L} lanes. */
    static final VectorSpecies<Byte> B = VectorSpecies.of(byte.class, VectorShape.forBitSize(Math.max(64, L * 8)));
    /** Shorts with {@link #L} lanes. */
    static final VectorSpecies<Short> S = VectorSpecies.of(short.class, VectorShape.forBitSize(Math.max(64, L * 16)));
    /** Ints with {@link #L} lanes. */
    static final VectorSpecies<Integer> I = VectorSpecies.of(int.class, F.vectorShape());

    private Lanes() {
    }

    /** Whether the kernels' block loops fit this machine's vectors: 8 or 16 float lanes. */
    static boolean supported() {
        return (L == 8 || L == 16) && B.length() == L && S.length() == L;
    }
}

package io.squall.kernels;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WeightMatrixTest {

    /**
     * Weights mapped from a file reach the kernels as the same segment class as memory they allocate (the KV
     * cache), so the Vector API's shared load profile stays monomorphic; the bytes, read-only flag and lifetime are
     * the mapping's.
     */
    @Test
    void mappedWeightsAreHeldAsPlainNativeSegmentsOfTheMappingsScope(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("weights.bin");
        float[] values = {0.5f, -1.25f, 3f, 7.75f, -0.125f, 2f, 9f, -4f};
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment bytes = scratch.allocate(4L * values.length);
            MemorySegment.copy(values, 0, bytes, ValueLayout.JAVA_FLOAT_UNALIGNED, 0, values.length);
            Files.write(file, bytes.toArray(ValueLayout.JAVA_BYTE));
        }
        Class<?> plain;
        try (Arena probe = Arena.ofConfined()) {
            plain = probe.allocate(8).getClass();
        }
        Arena arena = Arena.ofShared();
        MemorySegment mapping;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            mapping = channel.map(FileChannel.MapMode.READ_ONLY, 0, 4L * values.length, arena);
        }
        assertThat(mapping.getClass()).isNotEqualTo(plain);

        WeightMatrix w = new WeightMatrix("w", GgmlType.F32, 2, 4, mapping);

        assertThat(w.data().getClass()).isEqualTo(plain);
        assertThat(w.data().address()).isEqualTo(mapping.address());
        assertThat(w.data().isReadOnly()).isTrue();
        assertThat(w.data().getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, 7)).isEqualTo(-4f);
        arena.close();
        assertThatThrownBy(() -> w.data().getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, 0))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void heapSegmentsAreKeptAsTheyAre() {
        MemorySegment heap = MemorySegment.ofArray(new float[8]);

        assertThat(new WeightMatrix("w", GgmlType.F32, 2, 4, heap).data()).isSameAs(heap);
    }
}

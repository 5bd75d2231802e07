package io.squall.kvgrid.pool;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class ZeroedMemoryTest {

    @Test
    void aLargeAllocationReadsAsZerosTakesWritesAndIsFreedWithItsArena() {
        long bytes = 1L << 30; // past any allocator's small-block path: mapped, zeroed by the OS as touched
        SplittableRandom random = new SplittableRandom();
        MemorySegment memory;
        try (Arena arena = Arena.ofShared()) {
            memory = ZeroedMemory.allocate(arena, bytes);
            assertThat(memory.byteSize()).isEqualTo(bytes);
            assertThat(memory.address() % Long.BYTES).isZero();
            for (int i = 0; i < 1_000; i++) {
                long at = random.nextLong(bytes / Long.BYTES) * Long.BYTES;
                assertThat(memory.get(ValueLayout.JAVA_LONG, at)).as("long at %d", at).isZero();
                long value = random.nextLong();
                memory.set(ValueLayout.JAVA_LONG, at, value);
                assertThat(memory.get(ValueLayout.JAVA_LONG, at)).isEqualTo(value);
            }
            assertThat(memory.get(ValueLayout.JAVA_BYTE, bytes - 1)).isZero();
        }
        assertThatThrownBy(() -> memory.get(ValueLayout.JAVA_LONG, 0)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void pagesBecomeResidentOnlyAsTheyAreTouched() throws IOException {
        Path status = Path.of("/proc/self/status");
        assumeTrue(Files.isReadable(status), "resident memory is read from /proc (Linux)");
        long bytes = 1L << 30;
        try (Arena arena = Arena.ofShared()) {
            long before = residentBytes(status);
            MemorySegment memory = ZeroedMemory.allocate(arena, bytes);
            assertThat(residentBytes(status) - before).as("resident growth on allocation").isLessThan(bytes / 8);
            memory.asSlice(0, bytes / 2).fill((byte) 1);
            assertThat(residentBytes(status) - before).as("resident growth once half is written")
                    .isGreaterThan(bytes / 2 - bytes / 8);
        }
    }

    private static long residentBytes(Path status) throws IOException {
        String line = Files.readAllLines(status).stream().filter(l -> l.startsWith("VmRSS:")).findFirst().orElseThrow();
        return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
    }

    @Test
    void refusesANonPositiveSize() {
        try (Arena arena = Arena.ofConfined()) {
            assertThatThrownBy(() -> ZeroedMemory.allocate(arena, 0)).isInstanceOf(IllegalArgumentException.class);
        }
    }
}

package io.squall.kvgrid.offload;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import java.util.zip.CRC32C;

/** Test pages: random contents from a seeded generator and their CRC32C. */
final class Pages {

    private Pages() {
    }

    static MemorySegment random(Random random, long bytes) {
        byte[] data = new byte[(int) bytes];
        random.nextBytes(data);
        return Arena.ofAuto().allocate(bytes).copyFrom(MemorySegment.ofArray(data));
    }

    static long crc(MemorySegment page) {
        CRC32C crc = new CRC32C();
        crc.update(page.asByteBuffer());
        return crc.getValue();
    }
}

package io.squall.kvgrid.pool;

/**
 * A count-min sketch of 4 rows of saturating 4-bit counters (held in bytes, capped at 15) with
 * aging: after {@code 10 × width} increments every counter is halved, so the sketch estimates recent
 * frequency. Estimates never undercount since the last aging (except by halving). Not thread-safe.
 */
final class CountMinSketch {

    private static final int DEPTH = 4;
    private static final int MAX_COUNT = 15;
    private static final int SAMPLE_FACTOR = 10;
    private static final long[] SEEDS = {
        0x9E3779B97F4A7C15L, 0xC2B2AE3D27D4EB4FL, 0x165667B19E3779F9L, 0xD6E8FEB86659FD93L
    };

    private final byte[][] rows;
    private final int mask;
    private final int sampleSize;
    private int additions;

    /** @param expectedKeys how many distinct keys are tracked at once (the cache capacity), &gt; 0 */
    CountMinSketch(int expectedKeys) {
        if (expectedKeys <= 0) {
            throw new IllegalArgumentException("expectedKeys must be > 0");
        }
        int width = Integer.highestOneBit(Math.clamp(expectedKeys, 16, 1 << 26) * 2 - 1);
        this.rows = new byte[DEPTH][width];
        this.mask = width - 1;
        this.sampleSize = SAMPLE_FACTOR * width;
    }

    void increment(long key) {
        for (int row = 0; row < DEPTH; row++) {
            int index = index(key, row);
            if (rows[row][index] < MAX_COUNT) {
                rows[row][index]++;
            }
        }
        if (++additions >= sampleSize) {
            age();
        }
    }

    int estimate(long key) {
        int min = MAX_COUNT;
        for (int row = 0; row < DEPTH; row++) {
            min = Math.min(min, rows[row][index(key, row)]);
        }
        return min;
    }

    private void age() {
        for (byte[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                row[i] = (byte) (row[i] >>> 1);
            }
        }
        additions /= 2;
    }

    /** SplitMix64's finaliser over the key and a per-row seed, reduced to the row width. */
    private int index(long key, int row) {
        long h = key + SEEDS[row];
        h = (h ^ (h >>> 30)) * 0xBF58476D1CE4E5B9L;
        h = (h ^ (h >>> 27)) * 0x94D049BB133111EBL;
        h ^= h >>> 31;
        return (int) h & mask;
    }
}

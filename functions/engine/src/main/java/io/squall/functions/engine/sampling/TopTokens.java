package io.squall.functions.engine.sampling;

/**
 * Partial selection of the {@code k} largest logits without sorting the vocabulary: a bounded min-heap of
 * packed keys, O(V log k) worst case and close to O(V) in practice because most tokens lose against the heap's
 * root. Stateless; the caller owns the key buffer.
 *
 * <p>A key packs a logit and a token id into one {@code long} whose natural order is "larger logit first, then
 * smaller id first": the high 32 bits are the logit's IEEE bits mapped to a signed int with the same order as the
 * float, the low 32 bits are {@code ~id} read as unsigned. NaN logits must be rejected before calling.
 */
final class TopTokens {
    private TopTokens() {
    }

    static long key(float logit, int id) {
        int bits = Float.floatToIntBits(logit);
        int ordered = bits ^ ((bits >> 31) & 0x7fffffff);
        return ((long) ordered << 32) | (~id & 0xffffffffL);
    }

    static int id(long key) {
        return ~(int) key;
    }

    /**
     * Writes the keys of the {@code min(k, logits.length)} largest logits into {@code keys}, largest first.
     *
     * @param keys buffer of length {@code >= k}
     * @return the number of keys written, 0 when {@code k <= 0}
     */
    static int select(float[] logits, int k, long[] keys) {
        int count = Math.min(k, logits.length);
        if (count <= 0) {
            return 0;
        }
        for (int i = 0; i < count; i++) {
            keys[i] = key(logits[i], i);
            siftUp(keys, i);
        }
        for (int i = count; i < logits.length; i++) {
            long candidate = key(logits[i], i);
            if (candidate > keys[0]) {
                keys[0] = candidate;
                siftDown(keys, count);
            }
        }
        // Heap sort in place: repeatedly move the minimum to the end, which leaves the keys in descending order.
        for (int end = count - 1; end > 0; end--) {
            long min = keys[0];
            keys[0] = keys[end];
            keys[end] = min;
            siftDown(keys, end);
        }
        return count;
    }

    private static void siftUp(long[] heap, int index) {
        long value = heap[index];
        while (index > 0) {
            int parent = (index - 1) >>> 1;
            if (heap[parent] <= value) {
                break;
            }
            heap[index] = heap[parent];
            index = parent;
        }
        heap[index] = value;
    }

    private static void siftDown(long[] heap, int size) {
        long value = heap[0];
        int index = 0;
        int child;
        while ((child = 2 * index + 1) < size) {
            if (child + 1 < size && heap[child + 1] < heap[child]) {
                child++;
            }
            if (heap[child] >= value) {
                break;
            }
            heap[index] = heap[child];
            index = child;
        }
        heap[index] = value;
    }
}

package io.squall.kernels.cpu;

import io.squall.kernels.PagedKv;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.Arrays;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;

import static io.squall.kernels.cpu.Lanes.F;
import static io.squall.kernels.cpu.Lanes.L;

/**
 * Causal GQA attention for one or more sequences, decode and prefill alike, flash-style: one chunk
 * per (sequence, KV head {@code g}, tile of query rows), whose {@code M = rows · group} query vectors
 * all read KV head {@code g}; every sequence of a call shares one parallel loop. Keys are walked in
 * blocks of {@link #BLOCK} positions; per block {@code S = scale · Q·Kᵀ} is computed with lanes over
 * positions straight from the transposed key plane of the pages (see {@link PagedKv}: one element
 * of {@link Lanes#L} consecutive positions is one vector load, so 4 query rows × 4 vectors of
 * positions, or × 2 with AVX2's 16 registers, stay in registers with no horizontal reduction),
 * positions after a row's own are masked, and each row keeps a running max {@code m}, sum {@code l}
 * and output accumulator {@code o}: {@code m' = max(m, max S)}, {@code α = e^(m−m')}, {@code P = e^(S−m')},
 * {@code l' = α·l + ΣP}, {@code o' = α·o + P·V}, finally {@code out = o / l} (Dao et al.,
 * FlashAttention, alg. 1). {@code P·V} reads each V row in place once per 4 query rows. Pages whose
 * block size is not a multiple of {@link Lanes#L} have their keys gathered per block into scratch.
 *
 * <p>Same formula as {@code AttentionKernels.attention}. Per-worker scratch grows on the calling
 * thread in {@link #prepare}; a run allocates nothing. Confined to the thread owning the enclosing
 * {@link CpuKernels}.
 */
final class TiledAttentionTask implements ParallelTask {

    /** Key positions per block: four vectors of lanes. */
    static final int BLOCK = 4 * L;
    /**
     * Whether the scores and {@code P·V} take tiles of 4 query rows × 4 vectors (16 accumulators and 21 registers:
     * AVX-512 has 32) rather than 4 × 2 (8 accumulators, for AVX2's 16 registers). On AVX2 the 4×4 tiles spilled:
     * a decode step of 16 sequences at 192 positions took a median 478–785 µs against 338–390 in 4×2 tiles, and a
     * 512-row prefill chunk at 2,048 positions 71–78 ms against 46 (AttentionBenchmark, two threads).
     */
    private static final boolean FOUR_VECTORS = L >= 16;
    /** Query vectors a tile aims for (rows × group), so K and V reads are shared this many ways. */
    private static final int TILE_QUERIES = 48;

    private final float[][] qs;
    private final float[][] acc;
    private final float[][] scores;
    private final float[][] rowState;
    private final int[][] positions;
    private final long[][] valueRows;
    /** Per worker: {@code [headDim][BLOCK]} keys gathered from pages whose block size is not a multiple of L. */
    private final MemorySegment[] gathered;
    private float[] q;
    private float[] out;
    private PagedKv[] kvs;
    private int[] rows;
    private int[] startPos;
    /** {@code firstRow[s]}: sequence s's first row in q and out; {@code firstChunk[s]}: its first chunk. */
    private int[] firstRow = new int[1];
    private int[] firstChunk = new int[2];
    private int sequences;
    private int heads;
    private int kvHeads;
    private int group;
    private int headDim;
    private long rowBytes;
    private float scale;
    private int tileRows;

    TiledAttentionTask(int threads) {
        this.qs = new float[threads][0];
        this.acc = new float[threads][0];
        this.scores = new float[threads][0];
        this.rowState = new float[threads][0];
        this.positions = new int[threads][0];
        this.valueRows = new long[threads][BLOCK];
        this.gathered = new MemorySegment[threads];
        Arrays.fill(gathered, MemorySegment.NULL);
    }

    /**
     * Sets the operands of the next run (see the several-sequence {@code Kernels.attention}), grows
     * scratch, and returns the chunk count, {@code Σ_s kvHeads · tiles(s)}.
     */
    int prepare(float[] q, float[] out, PagedKv[] kvs, int[] rows, int[] startPos, int sequences, int heads,
                int kvHeads, int headDim, float scale) {
        this.q = q;
        this.out = out;
        this.kvs = kvs;
        this.rows = rows;
        this.startPos = startPos;
        this.sequences = sequences;
        this.heads = heads;
        this.kvHeads = kvHeads;
        this.group = heads / kvHeads;
        this.headDim = headDim;
        this.rowBytes = (long) kvHeads * headDim * Float.BYTES;
        this.scale = scale;
        this.tileRows = Math.max(1, TILE_QUERIES / group);
        if (firstChunk.length < sequences + 1) {
            firstRow = new int[sequences];
            firstChunk = new int[sequences + 1];
        }
        int maxRows = 0;
        boolean gathers = false;
        int row = 0;
        int chunk = 0;
        for (int s = 0; s < sequences; s++) {
            firstRow[s] = row;
            firstChunk[s] = chunk;
            row += rows[s];
            chunk += kvHeads * Math.ceilDiv(rows[s], tileRows);
            maxRows = Math.max(maxRows, rows[s]);
            gathers |= kvs[s].blockSize() % L != 0;
        }
        firstChunk[sequences] = chunk;
        int mPad = padded(Math.min(tileRows, maxRows) * group);
        for (int w = 0; w < qs.length; w++) {
            if (qs[w].length < mPad * headDim) {
                qs[w] = new float[mPad * headDim];
                acc[w] = new float[mPad * headDim];
            }
            if (scores[w].length < mPad * BLOCK) {
                scores[w] = new float[mPad * BLOCK];
                rowState[w] = new float[3 * mPad];
                positions[w] = new int[mPad];
            }
            if (gathers && gathered[w].byteSize() < (long) headDim * BLOCK * Float.BYTES) {
                gathered[w] = Arena.ofAuto().allocate((long) headDim * BLOCK * Float.BYTES, 64);
            }
        }
        return chunk;
    }

    /** Drops the references to the last call's operands. */
    void clear() {
        q = null;
        out = null;
        kvs = null;
        rows = null;
        startPos = null;
    }

    private static int padded(int m) {
        return (m + 3) & ~3;
    }

    @Override
    public void run(int chunk, int worker) {
        int found = Arrays.binarySearch(firstChunk, 0, sequences + 1, chunk); // starts rise: every sequence has rows
        int seq = found >= 0 ? found : -found - 2;
        PagedKv kv = kvs[seq];
        int tiles = Math.ceilDiv(rows[seq], tileRows);
        int local = chunk - firstChunk[seq];
        int tile = tiles - 1 - local / kvHeads; // the longest tiles first
        int g = local % kvHeads;
        int b0 = tile * tileRows;
        int tileRowCount = Math.min(tileRows, rows[seq] - b0);
        int m = tileRowCount * group;
        int mPad = padded(m);
        int rowBase = firstRow[seq] + b0;
        int start = startPos[seq] + b0;
        float[] qs = this.qs[worker];
        float[] acc = this.acc[worker];
        float[] s = scores[worker];
        float[] state = rowState[worker]; // [max | sum | alpha] per query vector
        int[] pos = positions[worker];
        long[] vRows = valueRows[worker];
        for (int i = 0; i < mPad; i++) {
            int r = Math.min(i, m - 1); // padding rows repeat the last row's position, with q = 0
            pos[i] = start + r / group;
            if (i < m) {
                int src = ((rowBase + i / group) * heads + g * group + i % group) * headDim;
                for (int d = 0; d < headDim; d++) {
                    qs[i * headDim + d] = q[src + d] * scale;
                }
            } else {
                Arrays.fill(qs, i * headDim, (i + 1) * headDim, 0f);
            }
            state[i] = Float.NEGATIVE_INFINITY;
            state[mPad + i] = 0f;
        }
        Arrays.fill(acc, 0, mPad * headDim, 0f);
        int last = start + tileRowCount - 1;
        long headBytes = (long) g * headDim * Float.BYTES;
        boolean direct = kv.blockSize() % L == 0;
        MemorySegment keys = direct ? kv.pages() : gathered[worker];
        long step = direct ? (long) kv.blockSize() * Float.BYTES : (long) BLOCK * Float.BYTES;
        for (int t0 = 0; t0 <= last; t0 += BLOCK) {
            int n = Math.min(BLOCK, last + 1 - t0);
            long k0;
            long k1;
            long k2;
            long k3;
            if (direct) { // a vector of positions never crosses a page; one past the context repeats the first
                int e = g * headDim;
                k0 = kv.keyElement(t0, e);
                k1 = L < n ? kv.keyElement(t0 + L, e) : k0;
                k2 = 2 * L < n ? kv.keyElement(t0 + 2 * L, e) : k0;
                k3 = 3 * L < n ? kv.keyElement(t0 + 3 * L, e) : k0;
            } else {
                gather(kv, g, t0, n, keys);
                k0 = 0;
                k1 = L * Float.BYTES;
                k2 = 2L * L * Float.BYTES;
                k3 = 3L * L * Float.BYTES;
            }
            for (int i = 0; i < mPad; i += 4) {
                if (FOUR_VECTORS) {
                    scores4x4(qs, i * headDim, s, i * BLOCK, keys, k0, k1, k2, k3, step);
                } else {
                    scores4x2(qs, i * headDim, s, i * BLOCK, keys, k0, k1, step);
                    scores4x2(qs, i * headDim, s, i * BLOCK + 2 * L, keys, k2, k3, step);
                }
            }
            for (int i = 0; i < mPad; i++) {
                online(s, i * BLOCK, state, i, mPad, pos[i] + 1 - t0);
            }
            valueRows(kv, vRows, t0, n);
            for (int i = 0; i < mPad; i += 4) {
                accumulate4(kv.pages(), acc, i, s, state, mPad, vRows, n, headBytes);
            }
        }
        for (int i = 0; i < m; i++) {
            int dst = ((rowBase + i / group) * heads + g * group + i % group) * headDim;
            float inv = 1f / state[mPad + i];
            for (int d = 0; d < headDim; d++) {
                out[dst + d] = acc[i * headDim + d] * inv;
            }
        }
    }

    /** Copies head {@code g}'s keys of positions {@code t0 .. t0+n−1} into {@code dst} as {@code [headDim][BLOCK]}. */
    private void gather(PagedKv kv, int g, int t0, int n, MemorySegment dst) {
        MemorySegment pages = kv.pages();
        for (int d = 0; d < headDim; d++) {
            long row = (long) d * BLOCK * Float.BYTES;
            for (int t = 0; t < n; t++) {
                dst.set(VectorMath.LE_FLOAT, row + (long) t * Float.BYTES,
                        pages.get(VectorMath.LE_FLOAT, kv.keyElement(t0 + t, g * headDim + d)));
            }
        }
    }

    /**
     * Scores of 4 query rows {@code r} (at {@code qs[qo + r·headDim]}) against the {@link #BLOCK}
     * positions of 4 key vectors: vector {@code v}'s element {@code d} is loaded from byte
     * {@code kv + d·step} of {@code keys}; row r's scores go to {@code s[so + r·BLOCK ..]}.
     */
    private void scores4x4(float[] qs, int qo, float[] s, int so, MemorySegment keys, long k0, long k1, long k2,
                           long k3, long step) {
        FloatVector a00 = FloatVector.zero(F), a01 = a00, a02 = a00, a03 = a00;
        FloatVector a10 = a00, a11 = a00, a12 = a00, a13 = a00;
        FloatVector a20 = a00, a21 = a00, a22 = a00, a23 = a00;
        FloatVector a30 = a00, a31 = a00, a32 = a00, a33 = a00;
        int hd = headDim;
        for (int d = 0; d < hd; d++, k0 += step, k1 += step, k2 += step, k3 += step) {
            FloatVector v0 = FloatVector.fromMemorySegment(F, keys, k0, ByteOrder.LITTLE_ENDIAN);
            FloatVector v1 = FloatVector.fromMemorySegment(F, keys, k1, ByteOrder.LITTLE_ENDIAN);
            FloatVector v2 = FloatVector.fromMemorySegment(F, keys, k2, ByteOrder.LITTLE_ENDIAN);
            FloatVector v3 = FloatVector.fromMemorySegment(F, keys, k3, ByteOrder.LITTLE_ENDIAN);
            FloatVector x = FloatVector.broadcast(F, qs[qo + d]);
            a00 = v0.fma(x, a00); a01 = v1.fma(x, a01); a02 = v2.fma(x, a02); a03 = v3.fma(x, a03);
            x = FloatVector.broadcast(F, qs[qo + hd + d]);
            a10 = v0.fma(x, a10); a11 = v1.fma(x, a11); a12 = v2.fma(x, a12); a13 = v3.fma(x, a13);
            x = FloatVector.broadcast(F, qs[qo + 2 * hd + d]);
            a20 = v0.fma(x, a20); a21 = v1.fma(x, a21); a22 = v2.fma(x, a22); a23 = v3.fma(x, a23);
            x = FloatVector.broadcast(F, qs[qo + 3 * hd + d]);
            a30 = v0.fma(x, a30); a31 = v1.fma(x, a31); a32 = v2.fma(x, a32); a33 = v3.fma(x, a33);
        }
        a00.intoArray(s, so); a01.intoArray(s, so + L); a02.intoArray(s, so + 2 * L); a03.intoArray(s, so + 3 * L);
        so += BLOCK;
        a10.intoArray(s, so); a11.intoArray(s, so + L); a12.intoArray(s, so + 2 * L); a13.intoArray(s, so + 3 * L);
        so += BLOCK;
        a20.intoArray(s, so); a21.intoArray(s, so + L); a22.intoArray(s, so + 2 * L); a23.intoArray(s, so + 3 * L);
        so += BLOCK;
        a30.intoArray(s, so); a31.intoArray(s, so + L); a32.intoArray(s, so + 2 * L); a33.intoArray(s, so + 3 * L);
    }

    /**
     * As {@link #scores4x4}, for two key vectors (half a block): the scores of 4 query rows against the positions
     * of the key vectors at {@code k0} and {@code k1}, row r's into {@code s[so + r·BLOCK ..]}. 8 accumulators, a
     * tile AVX2's 16 registers hold (the 4×4 one needs 21).
     */
    private void scores4x2(float[] qs, int qo, float[] s, int so, MemorySegment keys, long k0, long k1, long step) {
        FloatVector a00 = FloatVector.zero(F), a01 = a00, a10 = a00, a11 = a00;
        FloatVector a20 = a00, a21 = a00, a30 = a00, a31 = a00;
        int hd = headDim;
        for (int d = 0; d < hd; d++, k0 += step, k1 += step) {
            FloatVector v0 = FloatVector.fromMemorySegment(F, keys, k0, ByteOrder.LITTLE_ENDIAN);
            FloatVector v1 = FloatVector.fromMemorySegment(F, keys, k1, ByteOrder.LITTLE_ENDIAN);
            FloatVector x = FloatVector.broadcast(F, qs[qo + d]);
            a00 = v0.fma(x, a00); a01 = v1.fma(x, a01);
            x = FloatVector.broadcast(F, qs[qo + hd + d]);
            a10 = v0.fma(x, a10); a11 = v1.fma(x, a11);
            x = FloatVector.broadcast(F, qs[qo + 2 * hd + d]);
            a20 = v0.fma(x, a20); a21 = v1.fma(x, a21);
            x = FloatVector.broadcast(F, qs[qo + 3 * hd + d]);
            a30 = v0.fma(x, a30); a31 = v1.fma(x, a31);
        }
        a00.intoArray(s, so); a01.intoArray(s, so + L);
        so += BLOCK;
        a10.intoArray(s, so); a11.intoArray(s, so + L);
        so += BLOCK;
        a20.intoArray(s, so); a21.intoArray(s, so + L);
        so += BLOCK;
        a30.intoArray(s, so); a31.intoArray(s, so + L);
    }

    /**
     * Online-softmax step for query vector {@code i} over its block of scores at {@code s[so ..]}, of
     * which the first {@code valid} are unmasked: turns the scores into {@code P = e^(S−m')} (0 where
     * masked) and updates max, sum and {@code α} in {@code state}.
     */
    private static void online(float[] s, int so, float[] state, int i, int mPad, int valid) {
        if (valid <= 0) { // the whole block is after this row's position
            Arrays.fill(s, so, so + BLOCK, 0f);
            state[2 * mPad + i] = 1f;
            return;
        }
        FloatVector maxV = FloatVector.broadcast(F, Float.NEGATIVE_INFINITY);
        for (int j = 0; j < BLOCK; j += L) {
            VectorMask<Float> live = F.indexInRange(j, valid);
            maxV = maxV.max(FloatVector.fromArray(F, s, so + j).blend(Float.NEGATIVE_INFINITY, live.not()));
        }
        float old = state[i];
        float max = Math.max(old, maxV.reduceLanes(VectorOperators.MAX));
        FloatVector sumV = FloatVector.zero(F);
        for (int j = 0; j < BLOCK; j += L) {
            VectorMask<Float> live = F.indexInRange(j, valid);
            FloatVector e = VectorMath.exp(FloatVector.fromArray(F, s, so + j).sub(max)).blend(0f, live.not());
            e.intoArray(s, so + j);
            sumV = sumV.add(e);
        }
        float alpha = (float) Math.exp(old - max); // 0 on the first block, where old = −∞
        state[i] = max;
        state[mPad + i] = state[mPad + i] * alpha + sumV.reduceLanes(VectorOperators.ADD);
        state[2 * mPad + i] = alpha;
    }

    /** Byte offsets of the value rows of positions {@code t0 .. t0+n−1}, one block-table lookup per page. */
    private void valueRows(PagedKv kv, long[] rows, int t0, int n) {
        int blockSize = kv.blockSize();
        int[] table = kv.blockTable();
        int page = t0 / blockSize;
        int slot = t0 % blockSize;
        long base = table[page] * kv.pageBytes() + kv.valueOffset();
        for (int t = 0; t < n; t++, slot++) {
            if (slot == blockSize) {
                slot = 0;
                base = table[++page] * kv.pageBytes() + kv.valueOffset();
            }
            rows[t] = base + slot * rowBytes;
        }
    }

    /** {@code o_r = α_r·o_r + Σ_t P[r][t]·v_t} for 4 query vectors {@code r = i .. i+3}, {@code t < n}. */
    private void accumulate4(MemorySegment pages, float[] acc, int i, float[] s, float[] state, int mPad, long[] vRows, int n,
                             long headBytes) {
        int hd = headDim;
        int o0 = i * hd, o1 = o0 + hd, o2 = o1 + hd, o3 = o2 + hd;
        int p0 = i * BLOCK, p1 = p0 + BLOCK, p2 = p1 + BLOCK, p3 = p2 + BLOCK;
        int alphas = 2 * mPad + i;
        float al0 = state[alphas], al1 = state[alphas + 1], al2 = state[alphas + 2], al3 = state[alphas + 3];
        int d = 0;
        if (FOUR_VECTORS) {
            for (; d + 4 * L <= hd; d += 4 * L) {
                accumulate4x4(pages, acc, o0 + d, s, p0, state, alphas, vRows, n, headBytes + (long) d * Float.BYTES);
            }
        } else {
            for (; d + 2 * L <= hd; d += 2 * L) {
                accumulate4x2(pages, acc, o0 + d, s, p0, state, alphas, vRows, n, headBytes + (long) d * Float.BYTES);
            }
        }
        for (; d + L <= hd; d += L) {
            FloatVector c0 = FloatVector.fromArray(F, acc, o0 + d).mul(al0);
            FloatVector c1 = FloatVector.fromArray(F, acc, o1 + d).mul(al1);
            FloatVector c2 = FloatVector.fromArray(F, acc, o2 + d).mul(al2);
            FloatVector c3 = FloatVector.fromArray(F, acc, o3 + d).mul(al3);
            long dBytes = headBytes + (long) d * Float.BYTES;
            for (int t = 0; t < n; t++) {
                FloatVector v = FloatVector.fromMemorySegment(F, pages, vRows[t] + dBytes, ByteOrder.LITTLE_ENDIAN);
                c0 = v.fma(FloatVector.broadcast(F, s[p0 + t]), c0);
                c1 = v.fma(FloatVector.broadcast(F, s[p1 + t]), c1);
                c2 = v.fma(FloatVector.broadcast(F, s[p2 + t]), c2);
                c3 = v.fma(FloatVector.broadcast(F, s[p3 + t]), c3);
            }
            c0.intoArray(acc, o0 + d);
            c1.intoArray(acc, o1 + d);
            c2.intoArray(acc, o2 + d);
            c3.intoArray(acc, o3 + d);
        }
        for (; d < hd; d++) {
            float c0 = acc[o0 + d] * al0, c1 = acc[o1 + d] * al1, c2 = acc[o2 + d] * al2, c3 = acc[o3 + d] * al3;
            long dBytes = headBytes + (long) d * Float.BYTES;
            for (int t = 0; t < n; t++) {
                float v = pages.get(VectorMath.LE_FLOAT, vRows[t] + dBytes);
                c0 += s[p0 + t] * v;
                c1 += s[p1 + t] * v;
                c2 += s[p2 + t] * v;
                c3 += s[p3 + t] * v;
            }
            acc[o0 + d] = c0;
            acc[o1 + d] = c1;
            acc[o2 + d] = c2;
            acc[o3 + d] = c3;
        }
    }

    /**
     * {@link #accumulate4} for four vectors of dimensions from {@code acc[a0]} (row 0; the others a head apart), whose
     * values start at byte {@code dBytes} of each value row; the rows' α at {@code state[alphas ..]}: 16 accumulators.
     */
    private void accumulate4x4(MemorySegment pages, float[] acc, int a0, float[] s, int p, float[] state, int alphas,
                               long[] vRows, int n, long dBytes) {
        int a1 = a0 + headDim, a2 = a1 + headDim, a3 = a2 + headDim;
        float al0 = state[alphas], al1 = state[alphas + 1], al2 = state[alphas + 2], al3 = state[alphas + 3];
        FloatVector c00 = FloatVector.fromArray(F, acc, a0).mul(al0);
        FloatVector c01 = FloatVector.fromArray(F, acc, a0 + L).mul(al0);
        FloatVector c02 = FloatVector.fromArray(F, acc, a0 + 2 * L).mul(al0);
        FloatVector c03 = FloatVector.fromArray(F, acc, a0 + 3 * L).mul(al0);
        FloatVector c10 = FloatVector.fromArray(F, acc, a1).mul(al1);
        FloatVector c11 = FloatVector.fromArray(F, acc, a1 + L).mul(al1);
        FloatVector c12 = FloatVector.fromArray(F, acc, a1 + 2 * L).mul(al1);
        FloatVector c13 = FloatVector.fromArray(F, acc, a1 + 3 * L).mul(al1);
        FloatVector c20 = FloatVector.fromArray(F, acc, a2).mul(al2);
        FloatVector c21 = FloatVector.fromArray(F, acc, a2 + L).mul(al2);
        FloatVector c22 = FloatVector.fromArray(F, acc, a2 + 2 * L).mul(al2);
        FloatVector c23 = FloatVector.fromArray(F, acc, a2 + 3 * L).mul(al2);
        FloatVector c30 = FloatVector.fromArray(F, acc, a3).mul(al3);
        FloatVector c31 = FloatVector.fromArray(F, acc, a3 + L).mul(al3);
        FloatVector c32 = FloatVector.fromArray(F, acc, a3 + 2 * L).mul(al3);
        FloatVector c33 = FloatVector.fromArray(F, acc, a3 + 3 * L).mul(al3);
        for (int t = 0; t < n; t++) {
            long v = vRows[t] + dBytes;
            FloatVector v0 = FloatVector.fromMemorySegment(F, pages, v, ByteOrder.LITTLE_ENDIAN);
            FloatVector v1 = FloatVector.fromMemorySegment(F, pages, v + L * Float.BYTES, ByteOrder.LITTLE_ENDIAN);
            FloatVector v2 = FloatVector.fromMemorySegment(F, pages, v + 2 * L * Float.BYTES, ByteOrder.LITTLE_ENDIAN);
            FloatVector v3 = FloatVector.fromMemorySegment(F, pages, v + 3 * L * Float.BYTES, ByteOrder.LITTLE_ENDIAN);
            FloatVector x = FloatVector.broadcast(F, s[p + t]);
            c00 = v0.fma(x, c00); c01 = v1.fma(x, c01); c02 = v2.fma(x, c02); c03 = v3.fma(x, c03);
            x = FloatVector.broadcast(F, s[p + BLOCK + t]);
            c10 = v0.fma(x, c10); c11 = v1.fma(x, c11); c12 = v2.fma(x, c12); c13 = v3.fma(x, c13);
            x = FloatVector.broadcast(F, s[p + 2 * BLOCK + t]);
            c20 = v0.fma(x, c20); c21 = v1.fma(x, c21); c22 = v2.fma(x, c22); c23 = v3.fma(x, c23);
            x = FloatVector.broadcast(F, s[p + 3 * BLOCK + t]);
            c30 = v0.fma(x, c30); c31 = v1.fma(x, c31); c32 = v2.fma(x, c32); c33 = v3.fma(x, c33);
        }
        c00.intoArray(acc, a0); c01.intoArray(acc, a0 + L);
        c02.intoArray(acc, a0 + 2 * L); c03.intoArray(acc, a0 + 3 * L);
        c10.intoArray(acc, a1); c11.intoArray(acc, a1 + L);
        c12.intoArray(acc, a1 + 2 * L); c13.intoArray(acc, a1 + 3 * L);
        c20.intoArray(acc, a2); c21.intoArray(acc, a2 + L);
        c22.intoArray(acc, a2 + 2 * L); c23.intoArray(acc, a2 + 3 * L);
        c30.intoArray(acc, a3); c31.intoArray(acc, a3 + L);
        c32.intoArray(acc, a3 + 2 * L); c33.intoArray(acc, a3 + 3 * L);
    }

    /** As {@link #accumulate4x4}, for two vectors of dimensions: 8 accumulators, which AVX2's 16 registers hold. */
    private void accumulate4x2(MemorySegment pages, float[] acc, int a0, float[] s, int p, float[] state, int alphas,
                               long[] vRows, int n, long dBytes) {
        int a1 = a0 + headDim, a2 = a1 + headDim, a3 = a2 + headDim;
        float al0 = state[alphas], al1 = state[alphas + 1], al2 = state[alphas + 2], al3 = state[alphas + 3];
        FloatVector c00 = FloatVector.fromArray(F, acc, a0).mul(al0);
        FloatVector c01 = FloatVector.fromArray(F, acc, a0 + L).mul(al0);
        FloatVector c10 = FloatVector.fromArray(F, acc, a1).mul(al1);
        FloatVector c11 = FloatVector.fromArray(F, acc, a1 + L).mul(al1);
        FloatVector c20 = FloatVector.fromArray(F, acc, a2).mul(al2);
        FloatVector c21 = FloatVector.fromArray(F, acc, a2 + L).mul(al2);
        FloatVector c30 = FloatVector.fromArray(F, acc, a3).mul(al3);
        FloatVector c31 = FloatVector.fromArray(F, acc, a3 + L).mul(al3);
        for (int t = 0; t < n; t++) {
            long v = vRows[t] + dBytes;
            FloatVector v0 = FloatVector.fromMemorySegment(F, pages, v, ByteOrder.LITTLE_ENDIAN);
            FloatVector v1 = FloatVector.fromMemorySegment(F, pages, v + L * Float.BYTES, ByteOrder.LITTLE_ENDIAN);
            FloatVector x = FloatVector.broadcast(F, s[p + t]);
            c00 = v0.fma(x, c00); c01 = v1.fma(x, c01);
            x = FloatVector.broadcast(F, s[p + BLOCK + t]);
            c10 = v0.fma(x, c10); c11 = v1.fma(x, c11);
            x = FloatVector.broadcast(F, s[p + 2 * BLOCK + t]);
            c20 = v0.fma(x, c20); c21 = v1.fma(x, c21);
            x = FloatVector.broadcast(F, s[p + 3 * BLOCK + t]);
            c30 = v0.fma(x, c30); c31 = v1.fma(x, c31);
        }
        c00.intoArray(acc, a0); c01.intoArray(acc, a0 + L);
        c10.intoArray(acc, a1); c11.intoArray(acc, a1 + L);
        c20.intoArray(acc, a2); c21.intoArray(acc, a2 + L);
        c30.intoArray(acc, a3); c31.intoArray(acc, a3 + L);
    }
}

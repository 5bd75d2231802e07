package io.squall.kernels.cpu;

/**
 * A batch of activation rows laid out by column for the broadcast tiles of {@link TiledMatmul}, in panels of two
 * vectors of rows: the panel of rows {@code b0 .. b0 + 2L − 1} ({@code b0} a multiple of {@code 2L}) starts at
 * {@code values[b0 · cols]} and holds column {@code k} of its rows at {@code k · width}, {@code width} being
 * {@code 2L} or, for a last panel of one vector, {@code L}. So a tile reads its panel front to back: with all rows in
 * one run per column, {@code stride} floats apart, a 2000-row prefill read a new page at every column and took
 * 3.4–4.1× as long as the 4×4 tiles over row-major activations (AVX2, six-row tiles; docs/BENCHMARKS.md). The
 * rows are padded with zeros to a multiple of the lanes so that every load is whole. Grows, never shrinks; confined
 * to the thread that fills it (the pool's threads only read it).
 */
final class ColumnActivations {

    float[] values = new float[0];
    /** {@link #rows} rounded up to a multiple of the lanes: the rows the panels hold. */
    int stride;
    /** Activation rows held. */
    int rows;

    /** The stride of {@code rows} activation rows: rounded up to a multiple of the lanes. */
    static int strideFor(int rows) {
        return Math.ceilDiv(rows, Lanes.L) * Lanes.L;
    }

    /** Lays out {@code rows} rows of {@code cols} values from {@code x} (row-major) by column. */
    void transpose(float[] x, int rows, int cols) {
        this.rows = rows;
        this.stride = strideFor(rows);
        int n = stride * cols;
        if (values.length < n) {
            values = new float[n];
        }
        // a vector of rows at a time, column by column: the L rows read stay in L1 across 16 columns, and each
        // column's L values are written together (row by row, a column's writes all missed L1)
        float[] v = values;
        for (int b0 = 0; b0 < stride; b0 += Lanes.L) {
            int panel = b0 - b0 % (2 * Lanes.L);
            int width = Math.min(2 * Lanes.L, stride - panel);
            int real = Math.min(Lanes.L, rows - b0);
            for (int k = 0, o = panel * cols + b0 - panel; k < cols; k++, o += width) {
                int j = 0;
                for (int xo = b0 * cols + k; j < real; j++, xo += cols) {
                    v[o + j] = x[xo];
                }
                for (; j < Lanes.L; j++) {
                    v[o + j] = 0f;
                }
            }
        }
    }
}

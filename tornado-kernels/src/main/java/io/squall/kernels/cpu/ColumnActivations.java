package io.squall.kernels.cpu;

/**
 * A batch of activation rows laid out by column for the broadcast tiles of {@link TiledMatmul}: {@code values[k ·
 * stride + b]} is column {@code k} of row {@code b}, so one vector load takes column {@code k} of {@link Lanes#L}
 * rows. The rows are padded with zeros to a multiple of the lanes so that every load is whole. Grows, never shrinks;
 * confined to the thread that fills it (the pool's threads only read it).
 */
final class ColumnActivations {

    float[] values = new float[0];
    /** Distance between columns: {@link #rows} rounded up to a multiple of the lanes. */
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
        // column's L values are one line written whole (row by row, a column's writes all missed L1)
        float[] v = values;
        for (int b0 = 0; b0 < stride; b0 += Lanes.L) {
            int real = Math.min(Lanes.L, rows - b0);
            for (int k = 0, o = b0; k < cols; k++, o += stride) {
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

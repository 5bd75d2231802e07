package io.squall.functions.engine.mock;

/**
 * Lawson and Hanson's active-set algorithm for {@code min ‖Ax − b‖₂ subject to x ≥ 0} (Solving Least Squares
 * Problems, 1974, chapter 23), for the handful of unknowns a timing fit has: each inner solve is a dense normal
 * equation.
 */
final class NonNegativeLeastSquares {

    private static final double TOLERANCE = 1e-12;

    private NonNegativeLeastSquares() {
    }

    /**
     * The non-negative {@code x} minimising {@code ‖Ax − b‖₂}. Columns are scaled to unit norm first, so
     * unknowns of very different magnitudes (seconds per step and per attention pair) are solved alike.
     */
    static double[] solve(double[][] a, double[] b) {
        int n = a[0].length;
        double[] norms = new double[n];
        for (double[] row : a) {
            for (int j = 0; j < n; j++) {
                norms[j] += row[j] * row[j];
            }
        }
        double[][] scaled = new double[a.length][n];
        for (int i = 0; i < a.length; i++) {
            for (int j = 0; j < n; j++) {
                scaled[i][j] = norms[j] == 0 ? 0 : a[i][j] / Math.sqrt(norms[j]);
            }
        }
        double[] y = activeSet(scaled, b);
        for (int j = 0; j < n; j++) {
            y[j] = norms[j] == 0 ? 0 : y[j] / Math.sqrt(norms[j]);
        }
        return y;
    }

    private static double[] activeSet(double[][] a, double[] b) {
        int n = a[0].length;
        double[] x = new double[n];
        boolean[] passive = new boolean[n];
        for (int outer = 0; outer < 3 * n; outer++) {
            double[] w = gradient(a, b, x);
            int best = -1;
            for (int j = 0; j < n; j++) {
                if (!passive[j] && w[j] > TOLERANCE && (best < 0 || w[j] > w[best])) {
                    best = j;
                }
            }
            if (best < 0) {
                return x;
            }
            passive[best] = true;
            while (true) {
                double[] z = restrictedSolve(a, b, passive);
                boolean feasible = true;
                for (int j = 0; j < n; j++) {
                    if (passive[j] && z[j] <= 0) {
                        feasible = false;
                        break;
                    }
                }
                if (feasible) {
                    x = z;
                    break;
                }
                double alpha = Double.MAX_VALUE;
                for (int j = 0; j < n; j++) {
                    if (passive[j] && z[j] <= 0) {
                        alpha = Math.min(alpha, x[j] / (x[j] - z[j]));
                    }
                }
                for (int j = 0; j < n; j++) {
                    x[j] += alpha * (z[j] - x[j]);
                    if (passive[j] && Math.abs(x[j]) <= TOLERANCE) {
                        passive[j] = false;
                        x[j] = 0;
                    }
                }
            }
        }
        return x;
    }

    /** {@code Aᵀ(b − Ax)}: positive where increasing a variable lowers the residual. */
    private static double[] gradient(double[][] a, double[] b, double[] x) {
        int n = x.length;
        double[] w = new double[n];
        for (int i = 0; i < a.length; i++) {
            double r = b[i];
            for (int j = 0; j < n; j++) {
                r -= a[i][j] * x[j];
            }
            for (int j = 0; j < n; j++) {
                w[j] += a[i][j] * r;
            }
        }
        return w;
    }

    /** Least squares over the passive variables only (the others held at 0), by the normal equations. */
    private static double[] restrictedSolve(double[][] a, double[] b, boolean[] passive) {
        int n = passive.length;
        int[] index = new int[n];
        int m = 0;
        for (int j = 0; j < n; j++) {
            if (passive[j]) {
                index[m++] = j;
            }
        }
        double[][] normal = new double[m][m + 1];
        for (int i = 0; i < a.length; i++) {
            double[] row = a[i];
            double target = b[i];
            for (int p = 0; p < m; p++) {
                double ap = row[index[p]];
                if (ap == 0) {
                    continue;
                }
                for (int q = 0; q < m; q++) {
                    normal[p][q] += ap * row[index[q]];
                }
                normal[p][m] += ap * target;
            }
        }
        double[] solved = gauss(normal, m);
        double[] z = new double[n];
        for (int p = 0; p < m; p++) {
            z[index[p]] = solved[p];
        }
        return z;
    }

    /** Solves the augmented system with partial pivoting; a singular direction gets 0. */
    private static double[] gauss(double[][] m, int n) {
        for (int col = 0; col < n; col++) {
            int pivot = col;
            for (int r = col + 1; r < n; r++) {
                if (Math.abs(m[r][col]) > Math.abs(m[pivot][col])) {
                    pivot = r;
                }
            }
            double[] swap = m[col];
            m[col] = m[pivot];
            m[pivot] = swap;
            if (Math.abs(m[col][col]) < 1e-300) {
                continue;
            }
            for (int r = 0; r < n; r++) {
                if (r != col) {
                    double f = m[r][col] / m[col][col];
                    if (f != 0) {
                        for (int c = col; c <= n; c++) {
                            m[r][c] -= f * m[col][c];
                        }
                    }
                }
            }
        }
        double[] x = new double[n];
        for (int i = 0; i < n; i++) {
            x[i] = Math.abs(m[i][i]) < 1e-300 ? 0 : m[i][n] / m[i][i];
        }
        return x;
    }
}

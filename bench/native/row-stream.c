// The read-bandwidth ceiling a decode step's F32 matmuls stream against: a float buffer summed as rows of COLS
// floats (the access of one weight row per output), AVX2 loads into two accumulators, OpenMP threads over the rows.
// Prints the best pass. Usage: row-stream MIB PASSES [HUGE] [COLS]; HUGE=1 asks for transparent huge pages.
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s MIB PASSES [HUGE] [COLS]\n", argv[0]);
        return 2;
    }
    size_t bytes = (size_t) atol(argv[1]) << 20;
    int passes = atoi(argv[2]);
    int huge = argc > 3 && atoi(argv[3]);
    size_t cols = argc > 4 ? (size_t) atol(argv[4]) : 768;
    if (bytes == 0 || passes < 1 || cols == 0 || cols % 16 != 0) {
        fprintf(stderr, "MIB and PASSES must be positive, COLS a multiple of 16\n");
        return 2;
    }
    float *buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    if (huge && madvise(buf, bytes, MADV_HUGEPAGE) != 0) {
        perror("madvise");
    }
    size_t n = bytes / sizeof(float);
    size_t rows = n / cols;
    for (size_t i = 0; i < n; i++) {
        buf[i] = (float) (i & 1023) * 1e-3f;
    }
    double best = 1e30;
    float checksum = 0;
    for (int p = 0; p < passes; p++) {
        double start = omp_get_wtime();
        float total = 0;
#pragma omp parallel for reduction(+ : total) schedule(static)
        for (size_t row = 0; row < rows; row++) {
            const float *r = buf + row * cols;
            __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
            for (size_t c = 0; c < cols; c += 16) {
                a0 = _mm256_add_ps(a0, _mm256_loadu_ps(r + c));
                a1 = _mm256_add_ps(a1, _mm256_loadu_ps(r + c + 8));
            }
            float lanes[8];
            _mm256_storeu_ps(lanes, _mm256_add_ps(a0, a1));
            total += lanes[0] + lanes[1] + lanes[2] + lanes[3] + lanes[4] + lanes[5] + lanes[6] + lanes[7];
        }
        double seconds = omp_get_wtime() - start;
        if (seconds < best) {
            best = seconds;
        }
        checksum += total;
    }
    printf("%zu MiB in rows of %zu, %d threads, huge pages %s: best of %d %.2f ms, %.1f GB/s (checksum %g)\n",
           bytes >> 20, cols, omp_get_max_threads(), huge ? "asked" : "no", passes, best * 1e3,
           (double) rows * cols * sizeof(float) / best / 1e9, checksum);
    return 0;
}

package io.squall.kernels.cpu;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WorkerPoolTest {

    @Test
    void everyChunkRunsExactlyOncePerRun() throws Exception {
        try (WorkerPool pool = new WorkerPool(4, 10_000)) {
            for (int run = 0; run < 2000; run++) {
                int chunks = 1 + run % 37;
                AtomicIntegerArray counts = new AtomicIntegerArray(chunks);
                pool.run((chunk, worker) -> counts.incrementAndGet(chunk), chunks);
                for (int c = 0; c < chunks; c++) {
                    assertThat(counts.get(c)).as("run %d chunk %d", run, c).isEqualTo(1);
                }
                if (run % 500 == 0) {
                    // Not synchronisation: outlasting the 10 µs spin lets the workers park, so the
                    // park/unpark hand-off is exercised as well as the spinning one.
                    Thread.sleep(2);
                }
            }
        }
    }

    @Test
    void workerIndicesStayWithinThePool() {
        try (WorkerPool pool = new WorkerPool(3, 10_000)) {
            AtomicIntegerArray seen = new AtomicIntegerArray(3);
            pool.run((chunk, worker) -> seen.incrementAndGet(worker), 300);
            int total = 0;
            for (int w = 0; w < 3; w++) {
                total += seen.get(w);
            }
            assertThat(total).as("indices stay within 0..threads-1 and every chunk counts once").isEqualTo(300);
        }
    }

    @Test
    void aFailingChunkFailsTheRunAndThePoolStaysUsable() {
        try (WorkerPool pool = new WorkerPool(2, 10_000)) {
            assertThatThrownBy(() -> pool.run((chunk, worker) -> {
                if (chunk == 5) {
                    throw new ArithmeticException("boom");
                }
            }, 10)).isInstanceOf(IllegalStateException.class).hasRootCauseInstanceOf(ArithmeticException.class);
            AtomicIntegerArray counts = new AtomicIntegerArray(10);
            pool.run((chunk, worker) -> counts.incrementAndGet(chunk), 10);
            assertThat(counts.toString()).isEqualTo("[1, 1, 1, 1, 1, 1, 1, 1, 1, 1]");
        }
    }

    @Test
    void runningOnAClosedPoolIsRejected() {
        WorkerPool pool = new WorkerPool(2, 0);
        pool.close();
        assertThatThrownBy(() -> pool.run((chunk, worker) -> { }, 4)).isInstanceOf(IllegalStateException.class);
    }
}

package io.squall.kernels.cpu;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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
    void eachThreadRunsItsOwnRangeInOrderThenTakesTheOthersFromTheirBacks() {
        int threads = 3;
        try (WorkerPool pool = new WorkerPool(threads, 10_000)) {
            for (int run = 0; run < 1000; run++) {
                int chunks = 2 + run % 97;
                List<List<Integer>> ranByThread = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    ranByThread.add(new ArrayList<>()); // each written by one thread only
                }
                pool.run((chunk, worker) -> ranByThread.get(worker).add(chunk), chunks);
                for (int t = 0; t < threads; t++) {
                    List<Integer> ran = ranByThread.get(t);
                    int ownFront = chunks * t / threads;
                    int ownBack = chunks * (t + 1) / threads;
                    int i = 0;
                    while (i < ran.size() && ran.get(i) >= ownFront && ran.get(i) < ownBack) {
                        assertThat(ran.get(i)).as("run %d thread %d: its own chunks in order", run, t).isEqualTo(ownFront + i);
                        i++;
                    }
                    int[] lastTaken = new int[threads];
                    Arrays.fill(lastTaken, Integer.MAX_VALUE);
                    for (; i < ran.size(); i++) {
                        int chunk = ran.get(i);
                        int owner = ownerOf(chunk, chunks, threads);
                        assertThat(owner).as("run %d thread %d: after its own range, only others' chunks", run, t)
                                .isNotEqualTo(t);
                        assertThat(chunk).as("run %d thread %d: another's range from its back", run, t)
                                .isLessThan(lastTaken[owner]);
                        lastTaken[owner] = chunk;
                    }
                }
            }
        }
    }

    /** The thread whose range holds {@code chunk}: thread t owns {@code [n·t/threads, n·(t+1)/threads)}. */
    private static int ownerOf(int chunk, int chunks, int threads) {
        int owner = 0;
        while (chunk >= chunks * (owner + 1) / threads) {
            owner++;
        }
        return owner;
    }

    @Test
    void moreChunksThanTheBoundsHoldAreRejected() {
        try (WorkerPool pool = new WorkerPool(2, 10_000)) {
            assertThatThrownBy(() -> pool.run((chunk, worker) -> { }, WorkerPool.MAX_CHUNKS + 1))
                    .isInstanceOf(IllegalArgumentException.class);
            AtomicIntegerArray counts = new AtomicIntegerArray(3);
            pool.run((chunk, worker) -> counts.incrementAndGet(chunk), 3);
            assertThat(counts.toString()).isEqualTo("[1, 1, 1]");
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

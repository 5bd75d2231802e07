package io.squall.kernels.cpu;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

/**
 * A fixed pool for fork-join loops with low dispatch latency: {@code threads − 1} daemon workers plus the calling
 * thread run the chunks of a {@link ParallelTask}.
 *
 * <p>Each thread owns a contiguous range of the chunks (thread {@code t} the {@code t}-th of {@code threads} equal
 * parts) and claims them from its front, in order; once its own range is empty it takes chunks from the back of the
 * others' until none is left. A thread's chunks are thus adjacent (a matmul's rows stream from memory as one run), and
 * a thread that starts late or runs slower leaves the others no more than one chunk to wait for. Claimed from one
 * shared ticket instead, the threads took every other chunk, each chunk began a new stream of weights, and to keep
 * the streams long a decode step's matrices had two chunks per thread, so that the last of them could leave the other
 * thread waiting for up to a quarter of the matrix.
 *
 * <p>Every range's bounds carry the run's generation, so a worker waking late from an earlier run can never claim a
 * chunk of a later one: its compare-and-set fails on the generation. The ranges are written before the generation is
 * published. Idle workers spin on the published generation for {@code spinNanos} (successive kernel calls of one
 * forward pass follow each other within microseconds), then park; the caller unparks only workers that said they were
 * parking (Dekker handshake on volatiles).
 *
 * <p>Thread-safety: {@link #run} must not be called concurrently (one forward pass at a time).
 */
final class WorkerPool implements AutoCloseable {

    /** Chunks a run may have: a range's front and back take 20 bits each of its bounds. */
    static final int MAX_CHUNKS = (1 << 20) - 1;
    private static final int GENERATION_SHIFT = 40;
    private static final int FRONT_SHIFT = 20;
    private static final long CHUNK_MASK = MAX_CHUNKS;
    private static final int GENERATION_MASK = (1 << 24) - 1;
    /** Slots between two threads' bounds: 128 bytes, so that no two share a cache line or its prefetched pair. */
    private static final int STRIDE = 16;

    private final Worker[] workers;
    private final long spinNanos;
    /** Per thread, at {@code t · STRIDE}: generation (24 bits) | front (20) | back (20) of its range. */
    private final AtomicLongArray bounds;
    private final AtomicInteger completed = new AtomicInteger();
    private volatile int published;
    private volatile ParallelTask task;
    private volatile Throwable failure;
    private volatile boolean closed;
    private int generation;

    /**
     * @param threads   threads that run chunks, including the caller; at least 1
     * @param spinNanos how long an idle worker spins before parking
     */
    WorkerPool(int threads, long spinNanos) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1, got " + threads);
        }
        this.spinNanos = spinNanos;
        this.bounds = new AtomicLongArray(threads * STRIDE);
        this.workers = new Worker[threads - 1];
        for (int i = 0; i < workers.length; i++) {
            workers[i] = new Worker(i + 1);
            workers[i].start();
        }
    }

    /** Threads that run chunks, including the caller. */
    int threads() {
        return workers.length + 1;
    }

    /**
     * Runs chunks {@code 0 .. chunkCount−1} of {@code work} across the pool and returns when all
     * are done; rethrows (wrapped) the first failure of any chunk.
     *
     * @throws IllegalArgumentException if {@code chunkCount} exceeds {@link #MAX_CHUNKS}
     */
    void run(ParallelTask work, int chunkCount) {
        if (closed) {
            throw new IllegalStateException("worker pool is closed");
        }
        if (chunkCount > MAX_CHUNKS) {
            throw new IllegalArgumentException("at most " + MAX_CHUNKS + " chunks a run, got " + chunkCount);
        }
        if (workers.length == 0 || chunkCount <= 1) {
            for (int c = 0; c < chunkCount; c++) {
                work.run(c, 0);
            }
            return;
        }
        int gen = ++generation & GENERATION_MASK;
        task = work;
        completed.set(0);
        int threads = threads();
        for (int t = 0; t < threads; t++) {
            long front = (long) chunkCount * t / threads;
            long back = (long) chunkCount * (t + 1) / threads;
            bounds.set(t * STRIDE, (long) gen << GENERATION_SHIFT | front << FRONT_SHIFT | back);
        }
        published = gen;
        for (Worker worker : workers) {
            if (worker.parking) {
                LockSupport.unpark(worker);
            }
        }
        drain(gen, 0);
        int spins = 0;
        while (completed.get() < chunkCount) {
            if (++spins < 1 << 16) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
        task = null;
        Throwable error = failure;
        if (error != null) {
            failure = null;
            throw new IllegalStateException("kernel chunk failed", error);
        }
    }

    /**
     * Runs chunks of generation {@code gen} on thread {@code self}: its own range from the front, then each other
     * thread's from the back. Counts them into {@link #completed} once, on leaving.
     */
    private void drain(int gen, int self) {
        ParallelTask work = task;
        int done = 0;
        int threads = threads();
        ranges:
        for (int k = 0; k < threads; k++) {
            int slot = (self + k) % threads * STRIDE;
            boolean own = k == 0;
            while (true) {
                long b = bounds.get(slot);
                if ((int) (b >>> GENERATION_SHIFT) != gen) {
                    break ranges; // a later run has begun: this one's chunks are all claimed
                }
                int front = (int) (b >>> FRONT_SHIFT & CHUNK_MASK);
                int back = (int) (b & CHUNK_MASK);
                if (front >= back) {
                    break;
                }
                if (!bounds.compareAndSet(slot, b, own ? b + (1L << FRONT_SHIFT) : b - 1)) {
                    continue;
                }
                try {
                    work.run(own ? front : back - 1, self);
                } catch (Throwable e) {
                    failure = e;
                }
                done++;
            }
        }
        completed.addAndGet(done);
    }

    @Override
    public void close() {
        closed = true;
        for (Worker worker : workers) {
            LockSupport.unpark(worker);
        }
    }

    private final class Worker extends Thread {

        private final int index;
        private volatile boolean parking;

        Worker(int index) {
            super("squall-kernels-" + index);
            this.index = index;
            setDaemon(true);
        }

        @Override
        public void run() {
            int seen = 0;
            while (!closed) {
                int gen = published;
                if (gen != seen) {
                    seen = gen;
                    drain(gen, index);
                    continue;
                }
                long until = System.nanoTime() + spinNanos;
                while (published == seen && !closed && System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
                if (published == seen && !closed) {
                    parking = true;
                    if (published == seen && !closed) {
                        LockSupport.park(this);
                    }
                    parking = false;
                }
            }
        }
    }
}

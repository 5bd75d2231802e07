package io.squall.kernels.cpu;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A fixed pool for fork-join loops with low dispatch latency: {@code threads − 1} daemon workers
 * plus the calling thread claim chunks of a {@link ParallelTask} from one atomic ticket.
 *
 * <p>The ticket packs the run's generation (high 32 bits) with the next unclaimed chunk (low 32
 * bits), so a worker waking late from an earlier run can never claim a chunk of a later one: its
 * compare-and-set fails on the generation; while a run is being published its ticket holds
 * {@code NOT_READY}, so no thread pairs an old ticket with the new chunk count. Idle workers spin on the ticket for {@code spinNanos}
 * (successive kernel calls of one forward pass follow each other within microseconds), then park;
 * the caller unparks only workers that said they were parking (Dekker handshake on volatiles).
 *
 * <p>Thread-safety: {@link #run} must not be called concurrently (one forward pass at a time).
 */
final class WorkerPool implements AutoCloseable {

    /** Ticket chunk value while the caller is still publishing a run's task and chunk count. */
    private static final int NOT_READY = Integer.MAX_VALUE;

    private final Worker[] workers;
    private final long spinNanos;
    private final AtomicLong ticket = new AtomicLong();
    private final AtomicInteger completed = new AtomicInteger();
    private volatile ParallelTask task;
    private volatile int chunks;
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
     */
    void run(ParallelTask work, int chunkCount) {
        if (closed) {
            throw new IllegalStateException("worker pool is closed");
        }
        if (workers.length == 0 || chunkCount <= 1) {
            for (int c = 0; c < chunkCount; c++) {
                work.run(c, 0);
            }
            return;
        }
        int gen = ++generation;
        // Close the previous run's ticket before touching task and chunks: a worker that read the
        // old ticket and then sees the new chunk count must fail its compare-and-set.
        ticket.set((long) gen << 32 | NOT_READY);
        task = work;
        chunks = chunkCount;
        completed.set(0);
        ticket.set((long) gen << 32);
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

    /** Claims and runs chunks of generation {@code gen} until none is left. */
    private void drain(int gen, int worker) {
        while (true) {
            long t = ticket.get();
            if ((int) (t >>> 32) != gen) {
                return;
            }
            ParallelTask work = task;
            int total = chunks;
            int chunk = (int) t;
            if (chunk == NOT_READY) {
                Thread.onSpinWait();
                continue;
            }
            if (chunk >= total) {
                return;
            }
            if (!ticket.compareAndSet(t, t + 1)) {
                continue;
            }
            try {
                work.run(chunk, worker);
            } catch (Throwable e) {
                failure = e;
            }
            completed.incrementAndGet();
        }
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
                int gen = (int) (ticket.get() >>> 32);
                if (gen != seen) {
                    seen = gen;
                    drain(gen, index);
                    continue;
                }
                long until = System.nanoTime() + spinNanos;
                while ((int) (ticket.get() >>> 32) == seen && !closed && System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
                if ((int) (ticket.get() >>> 32) == seen && !closed) {
                    parking = true;
                    if ((int) (ticket.get() >>> 32) == seen && !closed) {
                        LockSupport.park(this);
                    }
                    parking = false;
                }
            }
        }
    }
}

package io.squall.kernels.cpu;

/**
 * Work split into numbered chunks for {@link WorkerPool#run}. Implementations are long-lived
 * objects whose fields the caller sets before each run, so dispatch allocates nothing.
 */
interface ParallelTask {

    /**
     * Runs chunk {@code chunk} on the thread numbered {@code worker} (0 is the calling thread,
     * {@code 1 .. threads−1} the pool's), which may use per-worker scratch of that index.
     */
    void run(int chunk, int worker);
}

package io.squall.kvgrid.pool;

import java.util.List;

/** The outcome of asking a {@link BlockPool} for blocks: running out is a value, not an exception. */
public sealed interface Allocation {

    /** The blocks, each with reference count 1, owned by the caller until it frees them. */
    record Allocated(List<KvBlock> blocks) implements Allocation {
        public Allocated {
            blocks = List.copyOf(blocks);
        }
    }

    /**
     * Not enough free blocks; nothing was allocated or evicted.
     *
     * @param free   blocks that could have been handed out (empty plus cached)
     * @param needed blocks asked for
     */
    record NoCapacity(int free, int needed) implements Allocation {
    }
}

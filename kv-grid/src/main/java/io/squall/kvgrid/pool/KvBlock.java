package io.squall.kvgrid.pool;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent.StoredBlock;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One page of a {@link BlockPool}: its id (the page index, which a block table stores), its reference
 * count (how many running sequences use it) and, once the block is full, its hash — set once by
 * {@link BlockPool#commit} and cleared only when the block is evicted and reused.
 *
 * <p>A block with reference count 0 sits in one of the pool's intrusive lists: the empty list when it
 * has no hash, the cached list (eviction order) when it has one. The links live here so moving a block
 * between lists allocates nothing and unlinking it is O(1).
 *
 * <p>Not thread-safe: read and changed only by the pool's owner thread, except {@link #copyState}, which
 * the offload thread changes too (see {@link CommittedBlock}).
 */
public final class KvBlock {

    /** No copy to lower tiers is queued or done for the block's current contents. */
    static final int IDLE = 0;
    /** A copy of the committed page is queued; the offload thread has not started it. */
    static final int QUEUED = 1;
    /** The offload thread is reading the page; the pool must not reuse it until the state changes. */
    static final int COPYING = 2;
    /** A lower tier holds (or is about to hold) a copy of the page. */
    static final int SAFE = 3;
    private static final VarHandle COPY_STATE;

    static {
        try {
            COPY_STATE = MethodHandles.lookup().findVarHandle(KvBlock.class, "copyState", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int id;
    /**
     * {@code generation << 2 | state}: the generation counts the contents the page has held (it grows at
     * every eviction or reset), so a copy queued for earlier contents can never start on later ones.
     */
    @SuppressWarnings("unused") // through COPY_STATE
    private volatile long copyState;
    int refCount;
    /** The committed chained hash and local hash, or {@code null} while the block is not full. */
    StoredBlock stored;
    /** The chained hash of the block before this one, or {@code null} for a sequence's first block. */
    BlockHash parent;
    /** Prefix hits since the block was committed. */
    int hits;
    /** The block as lent to the eviction sink for an eager copy, or {@code null}. */
    CommittedBlock lent;
    KvBlock prev;
    KvBlock next;

    KvBlock(int id) {
        this.id = id;
    }

    /** The page index in the pool, 0 ≤ id &lt; capacity. */
    public int id() {
        return id;
    }

    /** How many holders use the block; 0 means it is free (empty or cached). */
    public int refCount() {
        return refCount;
    }

    /** The block's chained hash, or {@code null} when it has not been committed as full. */
    public BlockHash hash() {
        return stored == null ? null : stored.hash();
    }

    /** Times a prefix lookup found this block since it was committed. */
    public int hits() {
        return hits;
    }

    long copyState() {
        return (long) COPY_STATE.getVolatile(this);
    }

    boolean casCopyState(long expected, long next) {
        return COPY_STATE.compareAndSet(this, expected, next);
    }

    void setCopyState(long next) {
        COPY_STATE.setVolatile(this, next);
    }

    /** Whether a lower tier holds a copy of this block's current contents. */
    boolean isSafe() {
        return (copyState() & 3) == SAFE;
    }

    static int state(long copyState) {
        return (int) (copyState & 3);
    }

    static long withState(long copyState, int state) {
        return copyState & ~3L | state;
    }

    /**
     * Makes sure no copy reads the page any more and none will start, then moves to the next generation
     * (idle). Waits while a copy is in progress: that is one page's memcpy on the offload thread.
     */
    void retireContents() {
        for (int spins = 0; ; spins++) {
            long current = copyState();
            if (state(current) == COPYING) {
                if (spins < 1_000) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield(); // the copying thread lost its core; let it finish
                }
                continue;
            }
            if (casCopyState(current, ((current >>> 2) + 1) << 2)) {
                return;
            }
        }
    }

    @Override
    public String toString() {
        return "KvBlock[" + id + ", ref=" + refCount + ", hash=" + hash() + "]";
    }
}

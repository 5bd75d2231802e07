package io.squall.functions.engine.batch;

import io.squall.kvgrid.BlockHash;

/**
 * Pages reserved in a scheduler's pool for the full prompt blocks {@code firstBlock() ..
 * firstBlock() + blockIds().length - 1} of one sequence, to be filled by another worker. Everything
 * is fixed at creation except the pages' contents.
 *
 * <p>Thread-safe: {@link #write} may be called from any thread until the scheduler closes the target
 * (when the transfer ends, or when it gives the pages back to the pool); after that writes are refused,
 * so a late frame can never land in a page that another sequence owns.
 */
public interface PrefillTarget {

    /** The sequence's request: its id, prompt and sampling. */
    GenerationRequest request();

    /** The prompt block (from 0) that {@code blockIds()[0]} receives. */
    int firstBlock();

    /** The reserved pages' ids in the pool, in block order (a copy). */
    int[] blockIds();

    /**
     * Copies {@code payload} into the page of prompt block {@code index}.
     *
     * @return false when the target is closed (nothing written)
     * @throws IllegalArgumentException when {@code index} is not a reserved block, {@code hash} is not that
     *     block's chained hash (as this pool computed it from the prompt) or {@code payload} is not one page long
     */
    boolean write(int index, BlockHash hash, byte[] payload);
}

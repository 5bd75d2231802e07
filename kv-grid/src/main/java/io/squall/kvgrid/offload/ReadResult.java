package io.squall.kvgrid.offload;

/** The outcome of reading a block from a {@link BlockStore}. */
public enum ReadResult {
    /** The block's exact bytes were copied. */
    HIT,
    /** The store does not hold the block. */
    MISSING,
    /**
     * The store held the block but its bytes failed verification; it has dropped the block. To the
     * reader this is a miss; to the worker's event stream it is a removal.
     */
    DISCARDED
}

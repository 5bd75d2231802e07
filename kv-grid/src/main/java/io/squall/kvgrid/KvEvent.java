package io.squall.kvgrid;

import java.util.List;
import java.util.Objects;

/**
 * A change in which blocks a worker holds. Each worker numbers its events with a monotonic
 * {@link #eventId()} (1, 2, 3, …) so that a consumer that sees a gap knows it lost events and must
 * ask for a snapshot. Consumers apply one worker's events in id order.
 */
public sealed interface KvEvent {

    WorkerId worker();

    /** The worker's sequence number of this event, starting at 1. */
    long eventId();

    /**
     * Blocks became present in {@code tier}, in prefix order: {@code blocks.get(0)}'s parent is
     * {@code parent}, and each later block's parent is the one before it.
     *
     * @param parent the block before the first one, or {@code null} when the first block starts a sequence
     */
    record Stored(WorkerId worker, long eventId, BlockHash parent, List<StoredBlock> blocks, Tier tier) implements KvEvent {
        public Stored {
            Objects.requireNonNull(worker, "worker");
            Objects.requireNonNull(tier, "tier");
            blocks = List.copyOf(blocks);
        }
    }

    /** Blocks stopped being present in {@code tier}. */
    record Removed(WorkerId worker, long eventId, List<BlockHash> hashes, Tier tier) implements KvEvent {
        public Removed {
            Objects.requireNonNull(worker, "worker");
            Objects.requireNonNull(tier, "tier");
            hashes = List.copyOf(hashes);
        }
    }

    /** The worker dropped every block in every tier. */
    record Cleared(WorkerId worker, long eventId) implements KvEvent {
        public Cleared {
            Objects.requireNonNull(worker, "worker");
        }
    }

    /** A block in a {@link Stored} event: its chained hash and the hash of its tokens alone. */
    record StoredBlock(BlockHash hash, LocalBlockHash localHash) {
        public StoredBlock {
            Objects.requireNonNull(hash, "hash");
            Objects.requireNonNull(localHash, "localHash");
        }
    }
}

package io.squall.kvgrid.index;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.WorkerId;
import io.squall.kvgrid.hash.BlockChain;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A radix index for workers that publish no KV events: it learns from the router's own decisions.
 * When a prompt is routed to worker W, W is assumed to hold the prompt's full blocks in G1 for {@code
 * ttl}; routing an overlapping prompt again refreshes the shared blocks. Expired blocks are removed
 * from the underlying {@link RadixIndex} before every lookup, so a shared prefix outlives the
 * suffixes that were routed only once, as a worker's LRU cache would.
 *
 * <p>Expiry is O(1) amortised per block: the TTL is the same for every block, so deadlines enter a
 * FIFO queue in order; a refreshed block leaves a superseded queue entry that is skipped when it
 * comes up. The clock is injected; a clock that steps backwards only delays expiry.
 *
 * <p>Not thread-safe: owned by one thread (the router's), and the wrapped index must be used only
 * through this class.
 */
public final class ApproximateIndex {

    private record Key(WorkerId worker, long hash) {}

    private record Due(Key key, long deadlineMillis) {}

    private final RadixIndex index;
    private final long ttlMillis;
    private final InstantSource clock;
    private final Map<Key, Long> deadlines = new HashMap<>();
    private final ArrayDeque<Due> queue = new ArrayDeque<>();
    private final Map<WorkerId, Long> lastEventIds = new HashMap<>();

    /**
     * @param index an empty index that this class will own
     * @param ttl how long a routed block is assumed to stay cached (positive, millisecond resolution)
     */
    public ApproximateIndex(RadixIndex index, Duration ttl, InstantSource clock) {
        this.index = Objects.requireNonNull(index, "index");
        this.clock = Objects.requireNonNull(clock, "clock");
        if (ttl.toMillis() <= 0) {
            throw new IllegalArgumentException("approximate index TTL must be at least one millisecond");
        }
        this.ttlMillis = ttl.toMillis();
    }

    /** Records that {@code prompt}'s full blocks were sent to {@code worker}: held in G1 for the TTL from now. */
    public void recordRouting(WorkerId worker, BlockChain prompt) {
        Objects.requireNonNull(worker, "worker");
        if (Objects.requireNonNull(prompt, "prompt").size() == 0) {
            return;
        }
        long deadline = clock.millis() + ttlMillis;
        List<KvEvent.StoredBlock> blocks = new ArrayList<>(prompt.size());
        for (int i = 0; i < prompt.size(); i++) {
            blocks.add(new KvEvent.StoredBlock(prompt.hash(i), prompt.localHash(i)));
            Key key = new Key(worker, prompt.hash(i).value());
            deadlines.put(key, deadline);
            queue.addLast(new Due(key, deadline));
        }
        index.apply(new KvEvent.Stored(worker, nextEventId(worker), null, blocks, Tier.G1));
    }

    /** Expires what is due, then answers as {@link RadixIndex#findMatches}; only G1 is ever populated. */
    public OverlapScores findMatches(BlockHash[] prompt) {
        expire();
        return index.findMatches(prompt);
    }

    /** Forgets a worker that left: O(blocks recorded for every worker), so meant for rare membership changes. */
    public void removeWorker(WorkerId worker) {
        Objects.requireNonNull(worker, "worker");
        index.removeWorker(worker);
        lastEventIds.remove(worker);
        deadlines.keySet().removeIf(key -> key.worker().equals(worker));
    }

    /** Removes every block whose deadline has passed; returns how many (worker, block) pairs expired. */
    public int expire() {
        long now = clock.millis();
        Map<WorkerId, List<BlockHash>> expired = new LinkedHashMap<>();
        int count = 0;
        for (Due due; (due = queue.peekFirst()) != null && due.deadlineMillis() <= now; ) {
            queue.pollFirst();
            Long current = deadlines.get(due.key());
            if (current != null && current == due.deadlineMillis()) {
                deadlines.remove(due.key());
                expired.computeIfAbsent(due.key().worker(), w -> new ArrayList<>()).add(new BlockHash(due.key().hash()));
                count++;
            }
        }
        expired.forEach((worker, hashes) -> index.apply(new KvEvent.Removed(worker, nextEventId(worker), hashes, Tier.G1)));
        return count;
    }

    private long nextEventId(WorkerId worker) {
        return lastEventIds.merge(worker, 1L, Long::sum);
    }
}

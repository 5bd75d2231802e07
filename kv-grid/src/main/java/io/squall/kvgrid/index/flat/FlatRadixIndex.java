package io.squall.kvgrid.index.flat;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent;
import io.squall.kvgrid.LocalBlockHash;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.WorkerId;
import io.squall.kvgrid.index.ApplyOutcome;
import io.squall.kvgrid.index.OverlapScores;
import io.squall.kvgrid.index.RadixIndex;
import io.squall.kvgrid.index.WorkerSnapshot;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A {@link RadixIndex} stored flat: one primitive table maps each chained block hash to a node
 * holding, per tier, a bit set of the workers that hold the block (see {@link NodeTable}); each
 * worker has a lazily kept reverse lookup of its blocks ({@link BlockLog}). Workers get dense slots
 * (bit positions), reused after a worker is removed.
 *
 * <p>Lookup walks the prompt's blocks in order with one "still matching" bit set per tier. The
 * invariant that makes it linear: <b>workers can only drop out as we descend</b> — a worker matches
 * block {@code i} only if it matched every block before it, so each step only ANDs the node's bits
 * into the running sets, and a worker's depth is fixed the moment its bit falls out. The walk stops
 * at the first unknown block or as soon as no worker remains. Cost: {@code O(blocks × ⌈workers/64⌉)}
 * word operations plus {@code O(workers)} to build the answer, independent of how many blocks are
 * cached. Memory-bound: blocks are probed in groups whose row reads overlap (see {@link #walk}), and
 * nothing is allocated per lookup but the answer.
 *
 * <p>Events cost O(1) per block, one random memory access each (the block's node): the reverse
 * lookup is an append-only log that Removed events do not touch, compacted now and then in O(1)
 * amortised per stored block; dropping a worker's blocks (Cleared, worker removed) walks the log.
 * Stored blocks are indexed even when their parent is unknown: such a
 * block cannot be reached by a lookup for that worker until its parent arrives, which is what a
 * prefix match requires anyway. Not thread-safe (see {@link RadixIndex}).
 */
public final class FlatRadixIndex implements RadixIndex {

    private static final Tier[] TIERS = Tier.values();
    /** Prompt blocks whose node rows a lookup reads ahead at once (see {@link #walk}). */
    private static final int AHEAD = 16;
    /** A {@link #groupSlots} entry not resolved yet. */
    private static final int DISPLACED = -2;

    private final NodeTable nodes;
    private final Map<WorkerId, WorkerState> workers = new HashMap<>();
    private WorkerState[] bySlot = new WorkerState[64];
    private long[] registered = new long[1];
    private int slotHighWater;
    private int[] freeSlots = new int[8];
    private int freeCount;

    // Lookup scratch, reused by every findMatches (one owner thread): nothing is allocated per
    // lookup but the answer itself.
    /** The prompt's hashes as longs: reading them leaves the walk no object to dereference. */
    private long[] hashes = new long[256];
    /**
     * Per block of two consecutive groups (see {@link #walk}): its home slot, and the keys found
     * there and in the next slot on its probe path.
     */
    private final int[] groupHomes = new int[2 * AHEAD];
    private final long[] groupKeys = new long[2 * AHEAD];
    private final long[] groupNextKeys = new long[2 * AHEAD];
    /** The node slot of each block of the group being walked, or -1 (see {@link #resolveGroup}). */
    private final int[] groupSlots = new int[2 * AHEAD];
    private long[] active = new long[TIERS.length];
    private int[] depth = new int[TIERS.length * 64];
    private final OverlapScores.Builder scores = OverlapScores.builder(0);
    /** Scratch of {@link BlockLog#compact}, shared by every worker's log. */
    private final SlotMarks marks = new SlotMarks();

    /** An empty index sized for about {@code expectedBlocks} distinct blocks (it grows as needed). */
    public FlatRadixIndex(int expectedBlocks) {
        if (expectedBlocks < 0) {
            throw new IllegalArgumentException("expected block count must not be negative");
        }
        this.nodes = new NodeTable(expectedBlocks);
    }

    /** An empty index with a small initial size. */
    public FlatRadixIndex() {
        this(1024);
    }

    @Override
    public ApplyOutcome apply(KvEvent event) {
        Objects.requireNonNull(event, "event");
        WorkerState worker = register(event.worker());
        long expected = worker.lastEventId + 1;
        if (event.eventId() < expected) {
            return new ApplyOutcome.Stale(worker.id, worker.lastEventId, event.eventId());
        }
        worker.lastEventId = event.eventId();
        switch (event) {
            case KvEvent.Stored stored -> store(worker, stored);
            case KvEvent.Removed removed -> remove(worker, removed);
            case KvEvent.Cleared ignored -> dropBlocks(worker);
        }
        return event.eventId() == expected ? ApplyOutcome.APPLIED : new ApplyOutcome.Gap(worker.id, expected, event.eventId());
    }

    /**
     * Reads the home rows of the event's blocks in the node table (independent loads, so that the
     * cache misses of a group of events overlap).
     */
    @Override
    public void prefetch(KvEvent event) {
        Objects.requireNonNull(event, "event");
        long touched = 0;
        switch (event) {
            case KvEvent.Stored stored -> {
                List<KvEvent.StoredBlock> stores = stored.blocks();
                for (int i = 0; i < stores.size(); i++) {
                    touched ^= nodes.touch(stores.get(i).hash().value());
                }
            }
            case KvEvent.Removed removed -> {
                List<BlockHash> hashes = removed.hashes();
                for (int i = 0; i < hashes.size(); i++) {
                    touched ^= nodes.touch(hashes.get(i).value());
                }
            }
            case KvEvent.Cleared ignored -> {
            }
        }
        nodes.absorb(touched);
    }

    @Override
    public OverlapScores findMatches(BlockHash[] prompt) {
        Objects.requireNonNull(prompt, "prompt");
        int blocks = prompt.length;
        if (blocks == 0 || workers.isEmpty()) {
            return OverlapScores.none(blocks);
        }
        int words = nodes.words();
        int tiers = TIERS.length;
        if (active.length < tiers * words) {
            active = new long[tiers * words];
        }
        if (depth.length < tiers * slotHighWater) {
            depth = new int[tiers * Math.max(slotHighWater, depth.length / tiers * 2)];
        }
        for (int t = 0; t < tiers; t++) {
            System.arraycopy(registered, 0, active, t * words, words);
        }
        int matched = walk(prompt, words);
        for (int t = 0; t < tiers; t++) {
            for (int w = 0; w < words; w++) {
                settle(active[t * words + w], w, t, matched);
            }
        }
        return scores(blocks);
    }

    /**
     * Descends the prompt, ANDing each block's tier masks into {@link #active} and settling the
     * depth of every worker whose bit falls out; returns the depth of the workers still active.
     *
     * <p>The blocks are probed in groups of {@link #AHEAD}: the keys of every block's home row and
     * of the row after it are read first (independent loads, so their cache and TLB misses overlap
     * instead of queueing behind each other; a block displaced by a collision, about one in four at
     * the table's load, then costs no extra serial miss, see {@link #resolveGroup}), and the next
     * group's reads are issued before the current group is walked, so that memory stays busy while
     * the walk computes. At most {@code 2 * AHEAD - 1} blocks are read in vain when the walk stops
     * early.
     */
    private int walk(BlockHash[] prompt, int words) {
        int blocks = prompt.length;
        long[] values = values(prompt);
        boolean oneWord = words == 1 && TIERS.length == 4;
        readGroup(values, 0, Math.min(AHEAD, blocks), 0);
        for (int start = 0, base = 0; start < blocks; start += AHEAD, base ^= AHEAD) {
            int next = start + AHEAD;
            if (next < blocks) {
                readGroup(values, next, Math.min(AHEAD, blocks - next), base ^ AHEAD);
            }
            int group = Math.min(AHEAD, blocks - start);
            resolveGroup(start, group, base);
            int stop = oneWord ? descendOneWord(start, group, base) : descend(start, group, base, words);
            if (stop >= 0) {
                return stop;
            }
        }
        return blocks;
    }

    /** The prompt's hashes, copied into {@link #hashes}. */
    private long[] values(BlockHash[] prompt) {
        if (hashes.length < prompt.length) {
            hashes = new long[Math.max(prompt.length, hashes.length * 2)];
        }
        long[] values = hashes;
        for (int i = 0; i < prompt.length; i++) {
            BlockHash hash = prompt[i];
            if (hash == null) {
                throw new NullPointerException("prompt holds a null block hash");
            }
            values[i] = hash.value();
        }
        return values;
    }

    /** Reads the keys of blocks {@code start .. start+group)}' first two probe rows into the group scratch from {@code base}. */
    private void readGroup(long[] values, int start, int group, int base) {
        for (int k = 0; k < group; k++) {
            int home = nodes.home(values[start + k]);
            groupHomes[base + k] = home;
            groupKeys[base + k] = nodes.key(home);
            groupNextKeys[base + k] = nodes.key(nodes.next(home));
        }
    }

    /**
     * Fills {@link #groupSlots} for blocks {@code start .. start+group)}, read into the group scratch
     * from {@code base}. Most are settled by the two rows already read; the few displaced further
     * have their third rows read together before any of them is probed on, so that their misses
     * overlap too.
     */
    private void resolveGroup(int start, int group, int base) {
        boolean displaced = false;
        long touched = 0;
        for (int k = base, i = start; k < base + group; k++, i++) {
            long value = hashes[i];
            int home = groupHomes[k];
            int slot;
            if (value == 0) {
                slot = nodes.find(0);
            } else if (groupKeys[k] == value) {
                slot = home;
            } else if (groupKeys[k] == 0) {
                slot = -1;
            } else if (groupNextKeys[k] == value) {
                slot = nodes.next(home);
            } else if (groupNextKeys[k] == 0) {
                slot = -1;
            } else {
                slot = DISPLACED;
                touched ^= nodes.key(nodes.next(nodes.next(home)));
                displaced = true;
            }
            groupSlots[k] = slot;
        }
        if (displaced) {
            nodes.absorb(touched);
            for (int k = base, i = start; k < base + group; k++, i++) {
                if (groupSlots[k] == DISPLACED) {
                    groupSlots[k] = nodes.findFrom(groupHomes[k], hashes[i]);
                }
            }
        }
    }

    /**
     * Walks one group for any number of bit-set words; returns where the walk stops (the depth of
     * the workers still active), or -1 when it continues past the group.
     */
    private int descend(int start, int group, int base, int words) {
        int tiers = TIERS.length;
        for (int k = 0; k < group; k++) {
            int i = start + k;
            int slot = groupSlots[base + k];
            if (slot < 0) {
                return i;
            }
            long remaining = 0;
            for (int w = 0; w < words; w++) {
                long held = 0;
                for (int t = 0; t < tiers; t++) {
                    held |= nodes.mask(slot, t, w); // cumulative: held in tier t or a faster one
                    int a = t * words + w;
                    long before = active[a];
                    long after = before & held;
                    if (before != after) {
                        settle(before & ~after, w, t, i);
                        active[a] = after;
                    }
                    remaining |= after;
                }
            }
            if (remaining == 0) {
                return i; // nobody left to settle
            }
        }
        return -1;
    }

    /**
     * {@link #descend} for up to 64 workers (one word per tier) and the four tiers G1–G4, the common
     * case, with the running sets in registers; {@code descend} is its reference (the tests run both).
     */
    private int descendOneWord(int start, int group, int base) {
        long g1 = active[0];
        long g2 = active[1];
        long g3 = active[2];
        long g4 = active[3];
        int stop = -1;
        for (int k = 0; k < group; k++) {
            int i = start + k;
            int slot = groupSlots[base + k];
            if (slot < 0) {
                stop = i;
                break;
            }
            long h1 = nodes.mask(slot, 0, 0);
            long h2 = h1 | nodes.mask(slot, 1, 0); // cumulative: held in the tier or a faster one
            long h3 = h2 | nodes.mask(slot, 2, 0);
            long h4 = h3 | nodes.mask(slot, 3, 0);
            long dropped1 = g1 & ~h1;
            long dropped2 = g2 & ~h2;
            long dropped3 = g3 & ~h3;
            long dropped4 = g4 & ~h4;
            if ((dropped1 | dropped2 | dropped3 | dropped4) != 0) {
                settle(dropped1, 0, 0, i);
                settle(dropped2, 0, 1, i);
                settle(dropped3, 0, 2, i);
                settle(dropped4, 0, 3, i);
                g1 &= h1;
                g2 &= h2;
                g3 &= h3;
                g4 &= h4;
                if (g4 == 0) { // g1 ⊆ g2 ⊆ g3 ⊆ g4: nobody left to settle
                    stop = i;
                    break;
                }
            }
        }
        active[0] = g1;
        active[1] = g2;
        active[2] = g3;
        active[3] = g4;
        return stop;
    }

    @Override
    public void removeWorker(WorkerId worker) {
        WorkerState state = workers.remove(Objects.requireNonNull(worker, "worker"));
        if (state == null) {
            return;
        }
        dropBlocks(state);
        bySlot[state.slot] = null;
        registered[state.slot >>> 6] &= ~(1L << state.slot);
        if (freeCount == freeSlots.length) {
            freeSlots = Arrays.copyOf(freeSlots, freeCount * 2);
        }
        freeSlots[freeCount++] = state.slot;
    }

    @Override
    public WorkerSnapshot dump(WorkerId worker) {
        WorkerState state = workers.get(Objects.requireNonNull(worker, "worker"));
        if (state == null) {
            return new WorkerSnapshot(worker, 0, List.of());
        }
        state.compact(nodes, marks); // now the log holds each of the worker's blocks once
        BlockLog log = state.log;
        List<KvEvent.Stored> events = new ArrayList<>(log.size());
        for (int i = 0; i < log.size(); i++) {
            long hash = log.hash(i);
            int node = nodes.find(hash);
            BlockHash parent = nodes.hasParent(node) ? new BlockHash(nodes.parent(node)) : null;
            List<KvEvent.StoredBlock> block = List.of(new KvEvent.StoredBlock(new BlockHash(hash), new LocalBlockHash(nodes.local(node))));
            int tiers = nodes.tiersOf(node, state.slot);
            for (Tier tier : TIERS) {
                if ((tiers & (1 << tier.ordinal())) != 0) {
                    events.add(new KvEvent.Stored(worker, state.lastEventId, parent, block, tier));
                }
            }
        }
        return new WorkerSnapshot(worker, state.lastEventId, events);
    }

    @Override
    public void replace(WorkerSnapshot snapshot) {
        Objects.requireNonNull(snapshot, "snapshot");
        WorkerState state = register(snapshot.worker());
        dropBlocks(state);
        for (KvEvent.Stored stored : snapshot.events()) {
            store(state, stored);
        }
        state.lastEventId = snapshot.lastEventId();
    }

    @Override
    public Set<WorkerId> workers() {
        return Set.copyOf(workers.keySet());
    }

    /** Distinct blocks held by any worker in any tier. */
    public int nodeCount() {
        return nodes.size();
    }

    private void store(WorkerState worker, KvEvent.Stored stored) {
        int tier = stored.tier().ordinal();
        boolean withParent = stored.parent() != null;
        long parent = withParent ? stored.parent().value() : 0;
        List<KvEvent.StoredBlock> blocks = stored.blocks();
        int count = blocks.size();
        if (count > 1) {
            long touched = 0;
            for (int i = 0; i < count; i++) {
                touched ^= nodes.touch(blocks.get(i).hash().value());
            }
            nodes.absorb(touched);
        }
        for (int i = 0; i < count; i++) {
            KvEvent.StoredBlock block = blocks.get(i);
            long hash = block.hash().value();
            int slot = nodes.node(hash, parent, withParent, block.localHash().value());
            int held = nodes.tiersOf(slot, worker.slot);
            nodes.set(slot, tier, worker.slot);
            if (held == 0) {
                worker.added(hash, nodes, marks);
            }
            parent = hash;
            withParent = true;
        }
    }

    private void remove(WorkerState worker, KvEvent.Removed removed) {
        int tier = removed.tier().ordinal();
        List<BlockHash> hashes = removed.hashes();
        int count = hashes.size();
        if (count > 1) {
            long touched = 0;
            for (int i = 0; i < count; i++) {
                touched ^= nodes.touch(hashes.get(i).value());
            }
            nodes.absorb(touched);
        }
        for (int i = 0; i < count; i++) {
            int slot = nodes.find(hashes.get(i).value());
            if (slot < 0) {
                continue;
            }
            int held = nodes.tiersOf(slot, worker.slot);
            if ((held & (1 << tier)) != 0) {
                nodes.clear(slot, tier, worker.slot);
                if (held == 1 << tier) {
                    worker.live--; // its log entry stays until the next compaction
                }
            }
        }
    }

    /** Drops every block of {@code worker} in every tier: O(1) per entry of its log. */
    private void dropBlocks(WorkerState worker) {
        worker.log.dropAll(nodes, worker.slot);
        worker.live = 0;
    }

    private WorkerState register(WorkerId id) {
        WorkerState state = workers.get(id);
        if (state != null) {
            return state;
        }
        int slot = freeCount > 0 ? freeSlots[--freeCount] : slotHighWater++;
        nodes.ensureWorkerSlots(slotHighWater);
        if (slotHighWater > bySlot.length) {
            bySlot = Arrays.copyOf(bySlot, bySlot.length * 2);
        }
        if (nodes.words() > registered.length) {
            registered = Arrays.copyOf(registered, nodes.words());
        }
        state = new WorkerState(id, slot);
        workers.put(id, state);
        bySlot[slot] = state;
        registered[slot >>> 6] |= 1L << slot;
        return state;
    }

    /** Records depth {@code blocks} in tier {@code tier} for every worker slot in {@code bits} of word {@code word}. */
    private void settle(long bits, int word, int tier, int blocks) {
        while (bits != 0) {
            int slot = (word << 6) + Long.numberOfTrailingZeros(bits);
            depth[tier + slot * TIERS.length] = blocks;
            bits &= bits - 1;
        }
    }

    /**
     * The answer from {@link #depth}. Only registered slots are read: each of them was settled in
     * every tier by this lookup (a bit leaves the active sets exactly once), so the scratch needs no
     * clearing between lookups, and slots of removed workers keep stale values that are never read.
     */
    private OverlapScores scores(int blocks) {
        OverlapScores.Builder answer = scores.reset(blocks);
        for (int w = 0; w < registered.length; w++) {
            for (long bits = registered[w]; bits != 0; bits &= bits - 1) {
                int slot = (w << 6) + Long.numberOfTrailingZeros(bits);
                answer.depths(bySlot[slot].id, depth, slot * TIERS.length); // skips workers with no block
            }
        }
        return answer.build();
    }

    /** What the index knows of one worker. */
    private static final class WorkerState {
        final WorkerId id;
        final int slot;
        final BlockLog log = new BlockLog();
        /** Blocks the worker holds in some tier: the log's live entries. */
        int live;
        long lastEventId;

        WorkerState(WorkerId id, int slot) {
            this.id = id;
            this.slot = slot;
        }

        /** The worker started to hold {@code hash} (it held it in no tier before). */
        void added(long hash, NodeTable nodes, SlotMarks marks) {
            live++;
            log.append(hash);
            if (log.needsCompaction(live)) {
                compact(nodes, marks);
            }
        }

        void compact(NodeTable nodes, SlotMarks marks) {
            int kept = log.compact(nodes, slot, marks);
            assert kept == live : "reverse log lost track of worker " + id + ": " + kept + " live entries, " + live + " expected";
        }
    }
}

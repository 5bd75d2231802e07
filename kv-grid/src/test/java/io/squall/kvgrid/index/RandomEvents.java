package io.squall.kvgrid.index;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent;
import io.squall.kvgrid.LocalBlockHash;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.WorkerId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Random but well-formed KV event streams over a small universe of documents that share prefixes
 * (so workers overlap and prompts branch), with occasional gaps, replays, clears and tier moves.
 * Document {@code d} shares its first {@code share[d]} blocks with document {@code base[d]}.
 */
public final class RandomEvents {

    static final int BLOCKS_PER_DOCUMENT = 24;

    private final Random random;
    private final int workers;
    private final int documents;
    private final int[] base;
    private final int[] share;
    private final Map<WorkerId, Long> lastIds = new HashMap<>();

    public RandomEvents(Random random, int workers, int documents) {
        this(random.nextLong(), random, workers, documents);
    }

    /** Streams over the document universe drawn from {@code universeSeed}, so several streams can share it. */
    public RandomEvents(long universeSeed, Random random, int workers, int documents) {
        Random universe = new Random(universeSeed);
        this.random = random;
        this.workers = workers;
        this.documents = documents;
        this.base = new int[documents];
        this.share = new int[documents];
        for (int d = 1; d < documents; d++) {
            base[d] = universe.nextInt(d);
            share[d] = universe.nextInt(BLOCKS_PER_DOCUMENT);
        }
    }

    /** The chained hash of block {@code i} of document {@code d}. */
    public BlockHash hash(int d, int i) {
        while (i < share[d]) {
            d = base[d];
        }
        return new BlockHash(d * 1000L + i + 1);
    }

    public WorkerId worker() {
        return new WorkerId(random.nextInt(workers));
    }

    /** Restarts the worker's event ids, as a worker that left and rejoined does. */
    public void forget(WorkerId worker) {
        lastIds.remove(worker);
    }

    /** A prompt: a prefix of one document, sometimes followed by blocks of another. */
    public BlockHash[] prompt() {
        int d = random.nextInt(documents);
        int length = 1 + random.nextInt(BLOCKS_PER_DOCUMENT);
        BlockHash[] prompt = new BlockHash[length];
        int other = random.nextInt(documents);
        int switchAt = random.nextInt(4) == 0 ? random.nextInt(length) : length;
        for (int i = 0; i < length; i++) {
            prompt[i] = hash(i < switchAt ? d : other, i);
        }
        return prompt;
    }

    /** The next event of a random worker. */
    public KvEvent next() {
        return next(worker());
    }

    /** The next event of {@code worker}; ids mostly follow on, sometimes skip ahead or repeat. */
    public KvEvent next(WorkerId worker) {
        long id = nextId(worker);
        Tier tier = random.nextInt(3) == 0 ? Tier.values()[random.nextInt(Tier.values().length)] : Tier.G1;
        int d = random.nextInt(documents);
        int kind = random.nextInt(100);
        if (kind < 1) {
            return new KvEvent.Cleared(worker, id);
        }
        if (kind < 35) {
            List<BlockHash> hashes = new ArrayList<>();
            for (int n = 1 + random.nextInt(4); n > 0; n--) {
                hashes.add(hash(d, random.nextInt(BLOCKS_PER_DOCUMENT)));
            }
            return new KvEvent.Removed(worker, id, hashes, tier);
        }
        int start = random.nextInt(BLOCKS_PER_DOCUMENT);
        int end = Math.min(BLOCKS_PER_DOCUMENT, start + 1 + random.nextInt(8));
        List<KvEvent.StoredBlock> blocks = new ArrayList<>();
        for (int i = start; i < end; i++) {
            BlockHash hash = hash(d, i);
            blocks.add(new KvEvent.StoredBlock(hash, new LocalBlockHash(~hash.value())));
        }
        return new KvEvent.Stored(worker, id, start == 0 ? null : hash(d, start - 1), blocks, tier);
    }

    private long nextId(WorkerId worker) {
        long last = lastIds.getOrDefault(worker, 0L);
        int roll = random.nextInt(200);
        long id = roll == 0 ? last + 2 + random.nextInt(3) : roll == 1 && last > 0 ? last : last + 1;
        lastIds.put(worker, Math.max(last, id));
        return id;
    }
}

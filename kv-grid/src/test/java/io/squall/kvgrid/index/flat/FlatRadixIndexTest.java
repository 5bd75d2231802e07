package io.squall.kvgrid.index.flat;

import static org.assertj.core.api.Assertions.assertThat;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent;
import io.squall.kvgrid.LocalBlockHash;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.WorkerId;
import io.squall.kvgrid.index.RadixIndex;
import io.squall.kvgrid.index.RadixIndexContract;
import io.squall.kvgrid.index.RandomEvents;
import io.squall.kvgrid.index.ReferenceRadixIndex;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FlatRadixIndexTest extends RadixIndexContract {

    @Override
    protected RadixIndex newIndex() {
        return new FlatRadixIndex(16); // tiny, so the tests exercise resizing
    }

    @Test
    void agreesWithTheReferenceOnRandomEventStreams() {
        agreesWithTheReference(12); // one bit-set word: the register walk
    }

    @Test
    void agreesWithTheReferenceBeyondOneWordOfWorkers() {
        agreesWithTheReference(70); // two words: the general walk
    }

    private static void agreesWithTheReference(int workers) {
        long seed = System.nanoTime();
        System.out.println("FlatRadixIndexTest workers=" + workers + " seed=" + seed);
        RandomEvents events = new RandomEvents(new Random(seed), workers, 40);
        FlatRadixIndex flat = new FlatRadixIndex(16);
        ReferenceRadixIndex reference = new ReferenceRadixIndex();

        for (int step = 0; step < 20_000; step++) {
            var event = events.next();
            flat.prefetch(event);
            if (step % 7 == 0) {
                flat.prefetch(events.next()); // a hint for an event never applied changes nothing
            }
            assertThat(flat.apply(event)).as("step %d (seed %d)", step, seed).isEqualTo(reference.apply(event));
            if (step % 50 == 0) {
                var prompt = events.prompt();
                assertThat(flat.findMatches(prompt)).as("step %d (seed %d)", step, seed).isEqualTo(reference.findMatches(prompt));
            }
            if (step % 997 == 0) {
                var worker = events.worker();
                flat.removeWorker(worker);
                reference.removeWorker(worker);
                events.forget(worker);
            }
        }
        assertThat(flat.workers()).isEqualTo(reference.workers());
    }

    /**
     * Heavy churn through the reverse log (stale entries, blocks stored again, many compactions),
     * then a dump and a worker removal must still see exactly the worker's blocks.
     */
    @Test
    void workerRemovalAfterHeavyChurnRemovesExactlyItsBlocks() {
        long seed = System.nanoTime();
        System.out.println("FlatRadixIndexTest churn seed=" + seed);
        Random random = new Random(seed);
        WorkerId churner = new WorkerId(1);
        WorkerId keeper = new WorkerId(2);
        FlatRadixIndex index = new FlatRadixIndex(16);
        BlockHash[] kept = new BlockHash[40];
        for (int i = 0; i < kept.length; i++) {
            kept[i] = new BlockHash(1_000 + i); // the keeper's chain; the churner touches it too
        }
        index.apply(new KvEvent.Stored(keeper, 1, null, stored(kept), Tier.G1));
        Set<String> held = new HashSet<>(); // the churner's "hash@tier"
        long eventId = 0;
        for (int step = 0; step < 50_000; step++) {
            BlockHash hash = new BlockHash(random.nextInt(4) == 0 ? 1_000 + random.nextInt(40) : 1 + random.nextInt(300));
            Tier tier = Tier.values()[random.nextInt(2)];
            if (random.nextBoolean()) {
                index.apply(new KvEvent.Stored(churner, ++eventId, null, stored(hash), tier));
                held.add(hash.value() + "@" + tier);
            } else {
                index.apply(new KvEvent.Removed(churner, ++eventId, List.of(hash), tier));
                held.remove(hash.value() + "@" + tier);
            }
        }

        Set<String> dumped = new HashSet<>();
        for (KvEvent.Stored event : index.dump(churner).events()) {
            assertThat(dumped.add(event.blocks().getFirst().hash().value() + "@" + event.tier()))
                    .as("each block once per tier (seed %d)", seed).isTrue();
        }
        assertThat(dumped).as("seed %d", seed).isEqualTo(held);

        index.removeWorker(churner);

        assertThat(index.nodeCount()).as("only the keeper's blocks are left (seed %d)", seed).isEqualTo(kept.length);
        var scores = index.findMatches(kept);
        assertThat(scores.workers()).containsExactly(keeper);
        assertThat(scores.blocks(keeper, Tier.G1)).isEqualTo(kept.length);
        assertThat(index.dump(keeper).events()).hasSize(kept.length);
    }

    /** Blocks whose rows sit two and more slots past their home are found, and missing ones stop the walk. */
    @Test
    void findsBlocksDisplacedFarFromTheirHomeSlot() {
        NodeTable probe = new NodeTable(4); // the index's table for the same expected size: 16 slots
        BlockHash[] colliding = new BlockHash[6];
        BlockHash absent = null; // a seventh with the same home, never stored
        for (long key = 1, found = 0; absent == null; key++) {
            if (probe.home(key) == probe.home(1)) {
                if (found < colliding.length) {
                    colliding[(int) found++] = new BlockHash(key);
                } else {
                    absent = new BlockHash(key);
                }
            }
        }
        WorkerId worker = new WorkerId(7);
        FlatRadixIndex index = new FlatRadixIndex(4);
        index.apply(new KvEvent.Stored(worker, 1, null, stored(colliding), Tier.G1));

        assertThat(index.findMatches(colliding).blocks(worker, Tier.G1)).isEqualTo(colliding.length);
        BlockHash[] gap = colliding.clone();
        gap[4] = absent; // probed through the whole run
        assertThat(index.findMatches(gap).blocks(worker, Tier.G1)).isEqualTo(4);
        index.apply(new KvEvent.Removed(worker, 2, List.of(colliding[2]), Tier.G1));
        assertThat(index.findMatches(colliding).blocks(worker, Tier.G1)).isEqualTo(2);
    }

    private static List<KvEvent.StoredBlock> stored(BlockHash... hashes) {
        return java.util.Arrays.stream(hashes).map(h -> new KvEvent.StoredBlock(h, new LocalBlockHash(~h.value()))).toList();
    }
}

package io.squall.kvgrid.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent;
import io.squall.kvgrid.LocalBlockHash;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.WorkerId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Behaviour every {@link RadixIndex} must have; subclasses supply the implementation. */
public abstract class RadixIndexContract {

    protected static final WorkerId A = new WorkerId(1);
    protected static final WorkerId B = new WorkerId(2);
    protected static final WorkerId C = new WorkerId(3);

    private RadixIndex index;
    private final java.util.Map<WorkerId, Long> nextIds = new java.util.HashMap<>();

    protected abstract RadixIndex newIndex();

    @BeforeEach
    void setUp() {
        index = newIndex();
    }

    /** Hashes of a chain: block i of prefix {@code prefix} is {@code prefix * 1000 + i + 1}. */
    protected static BlockHash[] chain(int prefix, int length) {
        BlockHash[] hashes = new BlockHash[length];
        for (int i = 0; i < length; i++) {
            hashes[i] = new BlockHash(prefix * 1000L + i + 1);
        }
        return hashes;
    }

    protected static BlockHash[] concat(BlockHash[] first, BlockHash[] second) {
        BlockHash[] all = java.util.Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, all, first.length, second.length);
        return all;
    }

    private long nextId(WorkerId worker) {
        return nextIds.merge(worker, 1L, Long::sum);
    }

    private ApplyOutcome store(WorkerId worker, Tier tier, BlockHash parent, BlockHash... hashes) {
        List<KvEvent.StoredBlock> blocks = new ArrayList<>();
        for (BlockHash hash : hashes) {
            blocks.add(new KvEvent.StoredBlock(hash, new LocalBlockHash(~hash.value())));
        }
        return index.apply(new KvEvent.Stored(worker, nextId(worker), parent, blocks, tier));
    }

    private ApplyOutcome remove(WorkerId worker, Tier tier, BlockHash... hashes) {
        return index.apply(new KvEvent.Removed(worker, nextId(worker), List.of(hashes), tier));
    }

    @Test
    void emptyIndexMatchesNothing() {
        OverlapScores scores = index.findMatches(chain(1, 4));

        assertThat(scores.workers()).isEmpty();
        assertThat(scores.promptBlocks()).isEqualTo(4);
        assertThat(index.findMatches(new BlockHash[0]).workers()).isEmpty();
    }

    @Test
    void countsLeadingBlocksPerWorkerAcrossBranchingPrefixes() {
        BlockHash[] shared = chain(1, 3);
        BlockHash[] branchA = chain(2, 2);
        BlockHash[] branchB = chain(3, 4);
        store(A, Tier.G1, null, concat(shared, branchA));
        store(B, Tier.G1, null, shared);
        store(B, Tier.G1, shared[2], branchB);
        store(C, Tier.G1, null, shared[0]);

        OverlapScores onA = index.findMatches(concat(shared, branchA));
        OverlapScores onB = index.findMatches(concat(shared, branchB));

        assertThat(onA.deviceBlocks(A)).isEqualTo(5);
        assertThat(onA.deviceBlocks(B)).isEqualTo(3);
        assertThat(onA.deviceBlocks(C)).isEqualTo(1);
        assertThat(onB.deviceBlocks(A)).isEqualTo(3);
        assertThat(onB.deviceBlocks(B)).isEqualTo(7);
        assertThat(onB.workers()).containsExactlyInAnyOrder(A, B, C);
    }

    @Test
    void matchStopsAtTheFirstMissingBlockEvenIfLaterOnesAreHeld() {
        BlockHash[] prompt = chain(1, 6);
        store(A, Tier.G1, null, prompt);

        remove(A, Tier.G1, prompt[2]);

        assertThat(index.findMatches(prompt).deviceBlocks(A)).isEqualTo(2);
        assertThat(index.findMatches(new BlockHash[] {prompt[3], prompt[4]}).deviceBlocks(A)).isEqualTo(2);
    }

    @Test
    void otherWorkersKeepABlockOneWorkerRemoved() {
        BlockHash[] prompt = chain(1, 3);
        store(A, Tier.G1, null, prompt);
        store(B, Tier.G1, null, prompt);

        remove(A, Tier.G1, prompt[0]);

        OverlapScores scores = index.findMatches(prompt);
        assertThat(scores.workers()).containsExactly(B);
        assertThat(scores.deviceBlocks(B)).isEqualTo(3);
    }

    @Test
    void removingAnUnheldBlockIsIgnored() {
        BlockHash[] prompt = chain(1, 2);
        store(A, Tier.G1, null, prompt);

        assertThat(remove(A, Tier.G2, prompt[0])).isEqualTo(ApplyOutcome.APPLIED);
        assertThat(remove(B, Tier.G1, prompt[0])).isEqualTo(ApplyOutcome.APPLIED);

        assertThat(index.findMatches(prompt).deviceBlocks(A)).isEqualTo(2);
    }

    @Test
    void countsTiersCumulativelyFastestFirst() {
        BlockHash[] prompt = chain(1, 8);
        store(A, Tier.G1, null, prompt[0], prompt[1]);
        store(A, Tier.G2, prompt[1], prompt[2], prompt[3]);
        store(A, Tier.G3, prompt[3], prompt[4]);
        store(A, Tier.G1, prompt[4], prompt[5]);
        store(B, Tier.G2, null, prompt[0], prompt[1], prompt[2]);

        OverlapScores scores = index.findMatches(prompt);

        assertThat(scores.blocks(A, Tier.G1)).isEqualTo(2);
        assertThat(scores.blocks(A, Tier.G2)).isEqualTo(4);
        assertThat(scores.blocks(A, Tier.G3)).isEqualTo(6);
        assertThat(scores.blocks(A, Tier.G4)).isEqualTo(6);
        assertThat(scores.blocks(B, Tier.G1)).isZero();
        assertThat(scores.blocks(B, Tier.G2)).isEqualTo(3);
        assertThat(scores.blocks(B, Tier.G4)).isEqualTo(3);
    }

    @Test
    void aBlockInTwoTiersStaysMatchedWhenOneCopyGoes() {
        BlockHash[] prompt = chain(1, 2);
        store(A, Tier.G1, null, prompt);
        store(A, Tier.G2, null, prompt);

        remove(A, Tier.G1, prompt[1]);

        OverlapScores scores = index.findMatches(prompt);
        assertThat(scores.blocks(A, Tier.G1)).isEqualTo(1);
        assertThat(scores.blocks(A, Tier.G2)).isEqualTo(2);
    }

    @Test
    void clearedDropsEveryBlockOfOneWorkerOnly() {
        BlockHash[] prompt = chain(1, 4);
        store(A, Tier.G1, null, prompt);
        store(A, Tier.G3, null, prompt);
        store(B, Tier.G1, null, prompt);

        assertThat(index.apply(new KvEvent.Cleared(A, nextId(A)))).isEqualTo(ApplyOutcome.APPLIED);

        OverlapScores scores = index.findMatches(prompt);
        assertThat(scores.workers()).containsExactly(B);
        assertThat(index.workers()).contains(A);
        assertThat(store(A, Tier.G1, null, prompt[0])).isEqualTo(ApplyOutcome.APPLIED);
        assertThat(index.findMatches(prompt).deviceBlocks(A)).isEqualTo(1);
    }

    @Test
    void removedWorkerDisappearsAndMayRejoin() {
        BlockHash[] prompt = chain(1, 4);
        store(A, Tier.G1, null, prompt);
        store(B, Tier.G1, null, prompt);

        index.removeWorker(A);

        assertThat(index.workers()).containsExactly(B);
        assertThat(index.findMatches(prompt).workers()).containsExactly(B);
        assertThat(index.dump(A).events()).isEmpty();
        ApplyOutcome rejoined = index.apply(new KvEvent.Stored(A, 1, null, List.of(new KvEvent.StoredBlock(prompt[0], new LocalBlockHash(7))), Tier.G1));
        assertThat(rejoined).isEqualTo(ApplyOutcome.APPLIED);
        assertThat(index.findMatches(prompt).deviceBlocks(A)).isEqualTo(1);
    }

    @Test
    void reportsGapsAndStaleEvents() {
        BlockHash[] prompt = chain(1, 3);
        index.apply(new KvEvent.Stored(A, 1, null, List.of(new KvEvent.StoredBlock(prompt[0], new LocalBlockHash(1))), Tier.G1));

        ApplyOutcome gap = index.apply(new KvEvent.Stored(A, 5, prompt[0], List.of(new KvEvent.StoredBlock(prompt[1], new LocalBlockHash(2))), Tier.G1));
        ApplyOutcome stale = index.apply(new KvEvent.Removed(A, 4, List.of(prompt[0]), Tier.G1));
        ApplyOutcome firstSeenLate = index.apply(new KvEvent.Cleared(B, 9));

        assertThat(gap).isEqualTo(new ApplyOutcome.Gap(A, 2, 5));
        assertThat(stale).isEqualTo(new ApplyOutcome.Stale(A, 5, 4));
        assertThat(firstSeenLate).isEqualTo(new ApplyOutcome.Gap(B, 1, 9));
        assertThat(index.findMatches(prompt).deviceBlocks(A)).as("the gapped event is applied, the stale one is not").isEqualTo(2);
        assertThat(index.apply(new KvEvent.Cleared(A, 6))).isEqualTo(ApplyOutcome.APPLIED);
    }

    @Test
    void snapshotRoundTripRestoresStateAndEventId() {
        BlockHash[] prompt = chain(1, 5);
        store(A, Tier.G1, null, prompt);
        store(A, Tier.G2, null, chain(2, 3));
        remove(A, Tier.G1, prompt[4]);
        WorkerSnapshot snapshot = index.dump(A);
        OverlapScores before = index.findMatches(prompt);

        RadixIndex other = newIndex();
        other.apply(new KvEvent.Stored(A, 1, null, List.of(new KvEvent.StoredBlock(chain(9, 1)[0], new LocalBlockHash(3))), Tier.G1));
        other.replace(snapshot);

        assertThat(snapshot.lastEventId()).isEqualTo(3);
        assertThat(snapshot.events()).hasSize(7);
        assertThat(other.findMatches(prompt)).isEqualTo(before);
        assertThat(other.findMatches(chain(9, 1)).workers()).as("replace drops what the snapshot lacks").isEmpty();
        assertThat(other.findMatches(chain(2, 3)).blocks(A, Tier.G2)).isEqualTo(3);
        assertThat(new HashSet<>(other.dump(A).events())).isEqualTo(new HashSet<>(snapshot.events()));
        assertThat(other.apply(new KvEvent.Cleared(A, 3))).isEqualTo(new ApplyOutcome.Stale(A, 3, 3));
        assertThat(other.apply(new KvEvent.Cleared(A, 4))).isEqualTo(ApplyOutcome.APPLIED);
    }

    @Test
    void dumpRecordsParentsAndLocalHashes() {
        BlockHash[] prompt = chain(1, 2);
        store(A, Tier.G1, null, prompt);

        List<KvEvent.Stored> events = index.dump(A).events();

        assertThat(events).containsExactlyInAnyOrder(
                new KvEvent.Stored(A, 1, null, List.of(new KvEvent.StoredBlock(prompt[0], new LocalBlockHash(~prompt[0].value()))), Tier.G1),
                new KvEvent.Stored(A, 1, prompt[0], List.of(new KvEvent.StoredBlock(prompt[1], new LocalBlockHash(~prompt[1].value()))), Tier.G1));
        assertThat(index.dump(C)).isEqualTo(new WorkerSnapshot(C, 0, List.of()));
    }

    @Test
    void blockHashZeroIsAnOrdinaryKey() {
        BlockHash zero = new BlockHash(0);
        store(A, Tier.G1, null, zero, new BlockHash(5));

        assertThat(index.findMatches(new BlockHash[] {zero, new BlockHash(5)}).deviceBlocks(A)).isEqualTo(2);
        remove(A, Tier.G1, zero);
        assertThat(index.findMatches(new BlockHash[] {zero}).workers()).isEmpty();
    }

    @Test
    void manyWorkersBeyondOneWordOfBits() {
        BlockHash[] prompt = chain(1, 10);
        for (int w = 0; w < 150; w++) {
            WorkerId worker = new WorkerId(100 + w);
            store(worker, Tier.G1, null, java.util.Arrays.copyOf(prompt, 1 + w % 10));
        }
        index.removeWorker(new WorkerId(100));

        OverlapScores scores = index.findMatches(prompt);

        assertThat(scores.workers()).hasSize(149);
        for (int w = 1; w < 150; w++) {
            assertThat(scores.deviceBlocks(new WorkerId(100 + w))).isEqualTo(1 + w % 10);
        }
    }

    @Test
    void consecutiveLookupsDoNotLeakIntoEachOther() {
        BlockHash[] prompt = chain(1, 40);
        store(A, Tier.G1, null, prompt);
        store(B, Tier.G1, null, java.util.Arrays.copyOf(prompt, 17));
        store(C, Tier.G1, null, prompt);
        index.removeWorker(C);

        OverlapScores full = index.findMatches(prompt);
        OverlapScores unknown = index.findMatches(chain(2, 5));
        OverlapScores shortPrompt = index.findMatches(java.util.Arrays.copyOf(prompt, 3));
        index.removeWorker(A);
        OverlapScores withoutA = index.findMatches(prompt);

        assertThat(full.workers()).containsExactlyInAnyOrder(A, B);
        assertThat(full.deviceBlocks(A)).isEqualTo(40);
        assertThat(full.deviceBlocks(B)).isEqualTo(17);
        assertThat(unknown.workers()).isEmpty();
        assertThat(shortPrompt.deviceBlocks(A)).isEqualTo(3);
        assertThat(shortPrompt.deviceBlocks(B)).isEqualTo(3);
        assertThat(withoutA.workers()).containsExactly(B);
        assertThat(withoutA.blocks(B, Tier.G4)).isEqualTo(17);
        assertThat(full.deviceBlocks(A)).as("an earlier answer is not changed by later lookups").isEqualTo(40);
    }

    @Test
    void longPromptsStopAtTheFirstMissingBlockWhereverItFalls() {
        BlockHash[] chain = chain(1, 40);
        store(A, Tier.G1, null, chain);
        store(B, Tier.G1, null, java.util.Arrays.copyOf(chain, 17));
        store(B, Tier.G2, chain[16], java.util.Arrays.copyOfRange(chain, 17, 33));

        for (int missing : new int[] {0, 1, 15, 16, 17, 31, 32, 33, 39, 40}) {
            BlockHash[] prompt = chain.clone();
            if (missing < prompt.length) {
                prompt[missing] = new BlockHash(-1 - missing);
            }
            OverlapScores scores = index.findMatches(prompt);

            assertThat(scores.blocks(A, Tier.G1)).as("A, first missing block %d", missing).isEqualTo(missing);
            assertThat(scores.blocks(B, Tier.G1)).as("B in G1, first missing block %d", missing).isEqualTo(Math.min(missing, 17));
            assertThat(scores.blocks(B, Tier.G2)).as("B in G2, first missing block %d", missing).isEqualTo(Math.min(missing, 33));
        }
    }
}

package io.squall.kvgrid.index;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent;
import io.squall.kvgrid.LocalBlockHash;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.WorkerId;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The obviously correct radix index: per worker and tier a {@code Set} of hashes, and a lookup that
 * checks every worker block by block. The oracle other implementations are compared with.
 */
public final class ReferenceRadixIndex implements RadixIndex {

    private record Node(BlockHash parent, LocalBlockHash local) {}

    private final Map<WorkerId, Map<Tier, Set<BlockHash>>> held = new HashMap<>();
    private final Map<WorkerId, Long> lastEventIds = new HashMap<>();
    private final Map<BlockHash, Node> nodes = new HashMap<>();
    private final Map<BlockHash, Integer> holders = new HashMap<>();

    @Override
    public ApplyOutcome apply(KvEvent event) {
        WorkerId worker = event.worker();
        tiers(worker);
        long last = lastEventIds.getOrDefault(worker, 0L);
        if (event.eventId() <= last) {
            return new ApplyOutcome.Stale(worker, last, event.eventId());
        }
        lastEventIds.put(worker, event.eventId());
        switch (event) {
            case KvEvent.Stored stored -> store(stored);
            case KvEvent.Removed removed -> {
                for (BlockHash hash : removed.hashes()) {
                    if (tiers(worker).get(removed.tier()).remove(hash)) {
                        release(hash);
                    }
                }
            }
            case KvEvent.Cleared ignored -> clearBlocks(worker);
        }
        return event.eventId() == last + 1 ? ApplyOutcome.APPLIED : new ApplyOutcome.Gap(worker, last + 1, event.eventId());
    }

    @Override
    public OverlapScores findMatches(BlockHash[] prompt) {
        OverlapScores.Builder scores = OverlapScores.builder(prompt.length);
        for (var entry : held.entrySet()) {
            for (Tier tier : Tier.values()) {
                int depth = 0;
                while (depth < prompt.length && heldUpTo(entry.getValue(), tier, prompt[depth])) {
                    depth++;
                }
                scores.depth(entry.getKey(), tier, depth);
            }
        }
        return scores.build();
    }

    private static boolean heldUpTo(Map<Tier, Set<BlockHash>> tiers, Tier slowest, BlockHash hash) {
        for (Tier tier : Tier.values()) {
            if (tier.compareTo(slowest) <= 0 && tiers.get(tier).contains(hash)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void removeWorker(WorkerId worker) {
        clearBlocks(worker);
        held.remove(worker);
        lastEventIds.remove(worker);
    }

    @Override
    public WorkerSnapshot dump(WorkerId worker) {
        long last = lastEventIds.getOrDefault(worker, 0L);
        List<KvEvent.Stored> events = new ArrayList<>();
        held.getOrDefault(worker, Map.of()).forEach((tier, hashes) -> {
            for (BlockHash hash : hashes) {
                Node node = nodes.get(hash);
                events.add(new KvEvent.Stored(worker, last, node.parent(), List.of(new KvEvent.StoredBlock(hash, node.local())), tier));
            }
        });
        return new WorkerSnapshot(worker, last, events);
    }

    @Override
    public void replace(WorkerSnapshot snapshot) {
        clearBlocks(snapshot.worker());
        snapshot.events().forEach(this::store);
        lastEventIds.put(snapshot.worker(), snapshot.lastEventId());
    }

    @Override
    public Set<WorkerId> workers() {
        return Set.copyOf(held.keySet());
    }

    private void store(KvEvent.Stored stored) {
        BlockHash parent = stored.parent();
        for (KvEvent.StoredBlock block : stored.blocks()) {
            nodes.putIfAbsent(block.hash(), new Node(parent, block.localHash()));
            if (tiers(stored.worker()).get(stored.tier()).add(block.hash())) {
                holders.merge(block.hash(), 1, Integer::sum);
            }
            parent = block.hash();
        }
    }

    private void clearBlocks(WorkerId worker) {
        for (Set<BlockHash> hashes : tiers(worker).values()) {
            hashes.forEach(this::release);
            hashes.clear();
        }
    }

    /** One (worker, tier) stopped holding {@code hash}; the node goes with its last holder. */
    private void release(BlockHash hash) {
        if (holders.merge(hash, -1, Integer::sum) == 0) {
            holders.remove(hash);
            nodes.remove(hash);
        }
    }

    private Map<Tier, Set<BlockHash>> tiers(WorkerId worker) {
        return held.computeIfAbsent(worker, w -> {
            Map<Tier, Set<BlockHash>> tiers = new EnumMap<>(Tier.class);
            for (Tier tier : Tier.values()) {
                tiers.put(tier, new HashSet<>());
            }
            return tiers;
        });
    }
}

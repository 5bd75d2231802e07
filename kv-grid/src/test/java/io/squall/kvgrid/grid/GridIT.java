package io.squall.kvgrid.grid;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent;
import io.squall.kvgrid.KvEvent.StoredBlock;
import io.squall.kvgrid.LocalBlockHash;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.WorkerId;
import io.squall.kvgrid.offload.ReadResult;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Three real members in one JVM on loopback; one is killed mid-test. */
class GridIT {

    private static final Logger LOG = LoggerFactory.getLogger(GridIT.class);
    private static final int MEMBERS = 3;
    private static final long BLOCK_BYTES = 1024;

    private final List<HazelcastInstance> members = new ArrayList<>();
    private Random random;
    private long seed;

    @BeforeEach
    void startCluster() throws IOException {
        seed = System.nanoTime();
        LOG.info("GridIT seed={}", seed);
        random = new Random(seed);
        String cluster = "squall-it-" + UUID.randomUUID();
        int seedPort = freePort();
        for (int i = 0; i < MEMBERS; i++) {
            int port = i == 0 ? seedPort : freePort();
            Config config = GridMembers.config(new GridConfig(cluster, "127.0.0.1", port,
                    List.of("127.0.0.1:" + seedPort), 1, 10_000));
            config.setProperty("hazelcast.logging.type", "none");
            config.setProperty("hazelcast.partition.count", "31");
            config.setProperty("hazelcast.max.no.heartbeat.seconds", "5");
            config.setProperty("hazelcast.heartbeat.interval.seconds", "1");
            config.setProperty("hazelcast.wait.seconds.before.join", "0");
            config.setProperty("hazelcast.max.wait.seconds.before.join", "0");
            members.add(Hazelcast.newHazelcastInstance(config));
        }
        assertThat(members.getFirst().getCluster().getMembers()).hasSize(MEMBERS);
    }

    @AfterEach
    void stopCluster() {
        members.forEach(member -> member.getLifecycleService().terminate());
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Test
    void everyLocationSurvivesTheLossOfAMember() {
        Map<BlockHash, Set<BlockLocation>> expected = new HashMap<>();
        for (int i = 0; i < 300; i++) {
            int writer = random.nextInt(MEMBERS);
            BlockHash hash = new BlockHash(random.nextInt(120));
            BlockLocation location = new BlockLocation(new WorkerId(writer), Tier.values()[random.nextInt(4)]);
            BlockDirectory directory = new BlockDirectory(members.get(writer));
            if (random.nextInt(4) == 0) {
                boolean held = expected.getOrDefault(hash, Set.of()).contains(location);
                assertThat(directory.remove(hash, location)).isEqualTo(held);
                expected.computeIfPresent(hash, (h, set) -> set.remove(location) && set.isEmpty() ? null : set);
            } else {
                directory.add(hash, location);
                expected.computeIfAbsent(hash, h -> new HashSet<>()).add(location);
            }
        }
        new BlockDirectory(members.get(1)).apply(List.of(
                new KvEvent.Stored(new WorkerId(7), 1, null,
                        List.of(new StoredBlock(new BlockHash(500), new LocalBlockHash(5))), Tier.G4)));
        expected.computeIfAbsent(new BlockHash(500), h -> new HashSet<>()).add(new BlockLocation(new WorkerId(7), Tier.G4));

        members.removeFirst().getLifecycleService().terminate();

        BlockDirectory survivor = new BlockDirectory(members.get(1));
        assertThat(survivor.size()).as("seed %d", seed).isEqualTo(expected.size());
        expected.forEach((hash, locations) ->
                assertThat(survivor.locations(hash)).as("seed %d hash %s", seed, hash).isEqualTo(locations));

        survivor.apply(List.of(new KvEvent.Cleared(new WorkerId(7), 2)));
        assertThat(survivor.locations(new BlockHash(500))).isEmpty();
    }

    @Test
    void gridBlocksAreServedExactlyOrReportedMissingAfterAMemberDies() {
        GridBlockStore writer = new GridBlockStore(members.getFirst(), BLOCK_BYTES);
        Map<BlockHash, Long> crcs = new HashMap<>();
        for (long h = 1; h <= 60; h++) {
            byte[] page = new byte[(int) BLOCK_BYTES];
            random.nextBytes(page);
            writer.put(new BlockHash(h), MemorySegment.ofArray(page));
            crcs.put(new BlockHash(h), crc(MemorySegment.ofArray(page)));
        }

        members.remove(1).getLifecycleService().terminate();

        GridBlockStore reader = new GridBlockStore(members.getLast(), BLOCK_BYTES);
        MemorySegment target = Arena.ofAuto().allocate(BLOCK_BYTES);
        int hits = 0;
        for (Map.Entry<BlockHash, Long> block : crcs.entrySet()) {
            ReadResult result = reader.read(block.getKey(), target);
            assertThat(result).isNotEqualTo(ReadResult.DISCARDED);
            if (result == ReadResult.HIT) {
                hits++;
                assertThat(crc(target)).as("seed %d block %s", seed, block.getKey()).isEqualTo(block.getValue());
            }
        }
        assertThat(hits).as("one backup covers one lost member").isEqualTo(crcs.size());

        members.getLast().<Long, byte[]>getMap(GridBlockStore.MAP_NAME).set(3L, new byte[(int) BLOCK_BYTES + 12]);
        assertThat(reader.read(new BlockHash(3), target)).isEqualTo(ReadResult.DISCARDED);
        assertThat(reader.contains(new BlockHash(3))).isFalse();
    }

    private static long crc(MemorySegment page) {
        CRC32C crc = new CRC32C();
        crc.update(page.asByteBuffer());
        return crc.getValue();
    }

    @Test
    void kvEventBatchesReachSubscribersOnOtherMembersIntactAndInOrder() throws Exception {
        WorkerId worker = new WorkerId(random.nextLong());
        List<List<KvEvent>> published = new ArrayList<>();
        long id = 1;
        for (int b = 0; b < 20; b++) {
            List<KvEvent> batch = new ArrayList<>();
            BlockHash parent = random.nextBoolean() ? null : new BlockHash(random.nextLong());
            List<StoredBlock> blocks = new ArrayList<>();
            for (int i = 0; i < 1 + random.nextInt(20); i++) {
                blocks.add(new StoredBlock(new BlockHash(random.nextLong()), new LocalBlockHash(random.nextLong())));
            }
            batch.add(new KvEvent.Stored(worker, id++, parent, blocks, Tier.values()[random.nextInt(Tier.values().length)]));
            batch.add(new KvEvent.Removed(worker, id++, List.of(blocks.getFirst().hash()), Tier.G1));
            if (b % 7 == 6) {
                batch.add(new KvEvent.Cleared(worker, id++));
            }
            published.add(batch);
        }
        java.util.concurrent.BlockingQueue<List<KvEvent>> received = new java.util.concurrent.LinkedBlockingQueue<>();
        try (AutoCloseable subscription = new KvEventTopic(members.get(2)).subscribe(received::add)) {
            KvEventTopic topic = new KvEventTopic(members.get(0));
            published.forEach(topic::publish);
            for (List<KvEvent> batch : published) {
                assertThat(received.poll(30, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(batch);
            }
        }
    }

    /**
     * A batch goes as one processor, its changes sorted by hash: the same hash stored, removed and stored again by
     * several workers within one batch, and workers cleared in the middle of it, must end as the events applied
     * one at a time would.
     */
    @Test
    void aBatchOfEventsEndsAsItsEventsAppliedInOrder() {
        BlockDirectory directory = new BlockDirectory(members.get(2));
        Map<BlockHash, Set<BlockLocation>> expected = new HashMap<>();
        List<KvEvent> batch = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            WorkerId worker = new WorkerId(100 + random.nextInt(4));
            Tier tier = Tier.values()[random.nextInt(3)];
            BlockLocation location = new BlockLocation(worker, tier);
            int roll = random.nextInt(20);
            if (roll == 0) {
                batch.add(new KvEvent.Cleared(worker, i));
                expected.values().forEach(set -> set.removeIf(l -> l.worker().equals(worker)));
            } else if (roll < 8) {
                List<BlockHash> hashes = new ArrayList<>();
                for (int k = 1 + random.nextInt(3); k > 0; k--) {
                    BlockHash hash = new BlockHash(10_000 + random.nextInt(30));
                    hashes.add(hash);
                    Set<BlockLocation> held = expected.get(hash);
                    if (held != null) {
                        held.remove(location);
                    }
                }
                batch.add(new KvEvent.Removed(worker, i, hashes, tier));
            } else {
                List<StoredBlock> blocks = new ArrayList<>();
                for (int k = 1 + random.nextInt(3); k > 0; k--) {
                    BlockHash hash = new BlockHash(10_000 + random.nextInt(30));
                    blocks.add(new StoredBlock(hash, new LocalBlockHash(hash.value() * 31)));
                    expected.computeIfAbsent(hash, h -> new HashSet<>()).add(location);
                }
                batch.add(new KvEvent.Stored(worker, i, null, blocks, tier));
            }
        }
        expected.values().removeIf(Set::isEmpty);

        directory.apply(batch);

        for (int h = 10_000; h < 10_030; h++) {
            BlockHash hash = new BlockHash(h);
            assertThat(directory.locations(hash)).as("seed %d hash %s", seed, hash)
                    .isEqualTo(expected.getOrDefault(hash, Set.of()));
        }
        for (int w = 100; w < 104; w++) {
            directory.removeWorker(new WorkerId(w));
        }
    }

    @Test
    void aSnapshotFromTheDirectoryHoldsExactlyTheWorkersBlocksWithTheirPrefixes() {
        BlockDirectory directory = new BlockDirectory(members.get(1));
        WorkerId worker = new WorkerId(41);
        WorkerId other = new WorkerId(42);
        List<StoredBlock> chain = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            chain.add(new StoredBlock(new BlockHash(random.nextLong()), new LocalBlockHash(random.nextLong())));
        }
        BlockHash root = new BlockHash(random.nextLong());
        directory.apply(List.of(
                new KvEvent.Stored(worker, 1, root, chain.subList(0, 8), Tier.G1),
                new KvEvent.Stored(worker, 2, chain.get(7).hash(), chain.subList(8, 12), Tier.G1),
                new KvEvent.Stored(worker, 3, root, chain.subList(0, 4), Tier.G2),
                new KvEvent.Removed(worker, 4, List.of(chain.get(11).hash()), Tier.G1)));
        directory.apply(List.of(new KvEvent.Stored(other, 1, null, chain.subList(0, 12), Tier.G1)));

        var snapshot = directory.snapshot(worker, 4);

        assertThat(snapshot.lastEventId()).isEqualTo(4);
        Map<String, BlockHash> parents = new HashMap<>();
        for (KvEvent.Stored event : snapshot.events()) {
            assertThat(event.blocks()).hasSize(1);
            StoredBlock block = event.blocks().getFirst();
            parents.put(block.hash() + "@" + event.tier(), event.parent());
            int index = chain.indexOf(block);
            assertThat(index).as("local hash kept for %s", block.hash()).isNotNegative();
            assertThat(event.parent()).isEqualTo(index == 0 ? root : chain.get(index - 1).hash());
        }
        Set<String> expected = new HashSet<>();
        for (int i = 0; i < 11; i++) {
            expected.add(chain.get(i).hash() + "@G1");
        }
        for (int i = 0; i < 4; i++) {
            expected.add(chain.get(i).hash() + "@G2");
        }
        assertThat(parents.keySet()).isEqualTo(expected);
    }
}

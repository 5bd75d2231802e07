package io.squall.functions.worker.kv;

import io.squall.functions.api.ErrorCode;
import io.squall.functions.api.KvBlockFrame;
import io.squall.functions.api.KvFetchService;
import io.squall.functions.api.KvPushService;
import io.squall.functions.api.PrefillService;
import io.squall.functions.discovery.InstanceId;
import io.squall.functions.api.StageException;
import io.squall.functions.api.codec.WireFormat;
import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.WorkerId;
import io.squall.kvgrid.grid.BlockLocation;
import io.squall.kvgrid.offload.ReadResult;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RemoteBlockStoreTest {

    private static final Logger LOG = LoggerFactory.getLogger(RemoteBlockStoreTest.class);
    private static final int BLOCK_BYTES = 256;
    private static final BlockHash HASH = new BlockHash(77);
    private static final WorkerId SELF = new WorkerId(1);
    private static final WorkerId A = new WorkerId(2);
    private static final WorkerId B = new WorkerId(3);

    private final List<WorkerId> asked = new ArrayList<>();
    private final byte[] page = page();

    private static byte[] page() {
        long seed = System.nanoTime();
        LOG.info("RemoteBlockStoreTest seed={}", seed);
        byte[] bytes = new byte[BLOCK_BYTES];
        new SplittableRandom(seed).nextBytes(bytes);
        return bytes;
    }

    private RemoteBlockStore store(Map<WorkerId, KvFetchService> services, BlockLocation... locations) {
        Set<BlockLocation> where = new LinkedHashSet<>(List.of(locations));
        Function<BlockHash, Set<BlockLocation>> directory = hash -> hash.equals(HASH) ? where : Set.of();
        KvPeers peers = new KvPeers() {
            @Override
            public Optional<KvFetchService> peer(WorkerId worker) {
                asked.add(worker);
                return Optional.ofNullable(services.get(worker));
            }

            @Override
            public Optional<PrefillService> prefillWorker(InstanceId worker) {
                return Optional.empty();
            }

            @Override
            public Optional<KvPushService> decodeWorker(InstanceId worker) {
                return Optional.empty();
            }

            @Override
            public void close() {
            }
        };
        return new RemoteBlockStore(directory, SELF, peers, BLOCK_BYTES, Duration.ofMillis(200));
    }

    private KvFetchService answering(KvBlockFrame frame) {
        return request -> Flux.just(frame);
    }

    private KvBlockFrame good() {
        return new KvBlockFrame(HASH, 0, page.clone(), WireFormat.crc32c(page));
    }

    private static MemorySegment target() {
        return Arena.ofAuto().allocate(BLOCK_BYTES);
    }

    @Test
    void readsTheExactPageFromAnotherWorkersLowerTierOnly() {
        KvFetchService wrong = request -> Flux.error(new AssertionError("must not be asked"));
        RemoteBlockStore store = store(Map.of(SELF, wrong, A, answering(good())),
                new BlockLocation(SELF, Tier.G2), new BlockLocation(A, Tier.G1), new BlockLocation(A, Tier.G3));
        MemorySegment target = target();

        assertThat(store.read(HASH, target)).isEqualTo(ReadResult.HIT);
        assertThat(target.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(page);
        assertThat(asked).containsExactly(A);
        assertThat(store.contains(HASH)).isTrue();
        assertThat(store.contains(new BlockHash(5))).isFalse();
        assertThat(store.tier()).isEqualTo(Tier.G4);
    }

    @Test
    void aCorruptFrameFallsThroughToTheNextHolder() {
        byte[] flipped = page.clone();
        flipped[3] ^= 1;
        KvBlockFrame corrupt = new KvBlockFrame(HASH, 0, flipped, WireFormat.crc32c(page));
        RemoteBlockStore store = store(Map.of(A, answering(corrupt), B, answering(good())),
                new BlockLocation(A, Tier.G2), new BlockLocation(B, Tier.G2));
        MemorySegment target = target();

        assertThat(store.read(HASH, target)).isEqualTo(ReadResult.HIT);
        assertThat(target.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(page);
        assertThat(asked).containsExactly(A, B);
    }

    @Test
    void everyBadAnswerIsAMissNeverOtherBytes() {
        byte[] flipped = page.clone();
        flipped[0] ^= 1;
        byte[] shorter = new byte[BLOCK_BYTES - 4];
        List<KvFetchService> bad = List.of(
                answering(new KvBlockFrame(HASH, 0, flipped, WireFormat.crc32c(page))),
                answering(new KvBlockFrame(HASH, 0, shorter, WireFormat.crc32c(shorter))),
                answering(new KvBlockFrame(new BlockHash(78), 0, page.clone(), WireFormat.crc32c(page))),
                answering(new KvBlockFrame(HASH, 1, page.clone(), WireFormat.crc32c(page))),
                request -> Flux.empty(),
                request -> Flux.error(new StageException(ErrorCode.INVALID_REQUEST, "malformed frame: CRC32C mismatch")),
                request -> Flux.never());
        for (KvFetchService service : bad) {
            RemoteBlockStore store = store(Map.of(A, service), new BlockLocation(A, Tier.G2));
            assertThat(store.read(HASH, target())).isEqualTo(ReadResult.MISSING);
        }
        assertThat(store(Map.of(), new BlockLocation(A, Tier.G2)).read(HASH, target())).isEqualTo(ReadResult.MISSING);
        assertThat(store(Map.of(A, answering(good()))).read(HASH, target())).isEqualTo(ReadResult.MISSING);
    }

    @Test
    void refusesWritesAndHoldsNothingOfItsOwn() {
        RemoteBlockStore store = store(Map.of(A, answering(good())), new BlockLocation(A, Tier.G2));
        assertThatThrownBy(() -> store.put(HASH, target())).isInstanceOf(UnsupportedOperationException.class);
        assertThat(store.remove(HASH)).isFalse();
        assertThat(store.blockCount()).isZero();
    }
}

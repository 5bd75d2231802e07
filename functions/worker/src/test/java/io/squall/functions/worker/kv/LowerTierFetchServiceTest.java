package io.squall.functions.worker.kv;

import io.squall.functions.api.KvBlockFrame;
import io.squall.functions.api.KvFetchRequest;
import io.squall.functions.api.codec.WireFormat;
import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.WorkerId;
import io.squall.kvgrid.metrics.KvStats;
import io.squall.kvgrid.offload.HostBlockStore;
import io.squall.kvgrid.offload.OffloadConfig;
import io.squall.kvgrid.offload.OffloadManager;
import io.squall.kvgrid.offload.OffloadPolicy;
import io.squall.kvgrid.pool.KvEventPublisher;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.test.StepVerifier;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class LowerTierFetchServiceTest {

    private static final Logger LOG = LoggerFactory.getLogger(LowerTierFetchServiceTest.class);
    private static final int BLOCK_BYTES = 128;

    private final HostBlockStore host = new HostBlockStore(8 * BLOCK_BYTES, BLOCK_BYTES);
    private final OffloadManager offload = new OffloadManager(new OffloadConfig(List.of(host),
            OffloadPolicy.standard(), 2, 8), new KvEventPublisher(new WorkerId(1), batch -> { }), KvStats.NONE, 16);
    private final LowerTierFetchService service = new LowerTierFetchService(offload);

    @AfterEach
    void close() {
        offload.close();
        host.close();
    }

    private byte[] put(long hash, SplittableRandom random) {
        byte[] page = new byte[BLOCK_BYTES];
        random.nextBytes(page);
        host.put(new BlockHash(hash), MemorySegment.ofArray(page));
        return page;
    }

    @Test
    void streamsTheLeadingHeldBlocksAsRequestedAndStopsAtTheFirstMiss() {
        long seed = System.nanoTime();
        LOG.info("LowerTierFetchServiceTest seed={}", seed);
        SplittableRandom random = new SplittableRandom(seed);
        byte[] first = put(1, random);
        byte[] second = put(2, random);
        put(4, random);
        KvFetchRequest request = new KvFetchRequest(List.of(new BlockHash(1), new BlockHash(2), new BlockHash(3),
                new BlockHash(4)));

        StepVerifier.create(service.fetch(request), 0)
                .expectSubscription()
                .expectNoEvent(Duration.ofMillis(50))
                .thenRequest(1)
                .assertNext(frame -> assertFrame(frame, 1, 0, first))
                .expectNoEvent(Duration.ofMillis(50))
                .thenRequest(1)
                .assertNext(frame -> assertFrame(frame, 2, 1, second))
                .thenRequest(5)
                .expectComplete()
                .verify(Duration.ofSeconds(10));
    }

    private static void assertFrame(KvBlockFrame frame, long hash, int index, byte[] page) {
        assertThat(frame.blockHash()).isEqualTo(new BlockHash(hash));
        assertThat(frame.index()).isEqualTo(index);
        assertThat(frame.payload()).isEqualTo(page);
        assertThat(frame.crc32c()).isEqualTo(WireFormat.crc32c(page));
    }
}

package io.squall.functions.worker;

import com.hazelcast.core.HazelcastInstance;
import io.squall.functions.api.GenerateRequest;
import io.squall.functions.api.SamplingOptions;
import io.squall.functions.discovery.WorkerRole;
import io.squall.functions.discovery.hazelcast.DiscoveryConfig;
import io.squall.functions.discovery.hazelcast.HazelcastDiscovery;
import io.squall.functions.engine.batch.BatchConfig;
import io.squall.functions.engine.model.Architecture;
import io.squall.functions.engine.model.RandomModel;
import io.squall.functions.worker.kv.KvConfig;
import io.squall.functions.worker.kv.KvEventRelay;
import io.squall.functions.worker.kv.KvSharing;
import io.squall.functions.worker.micronaut.WorkerApplication;
import io.squall.kernels.GgmlType;
import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.grid.BlockDirectory;
import io.squall.kvgrid.grid.GridBlockStore;
import io.squall.kvgrid.grid.GridConfig;
import io.squall.kvgrid.grid.GridMembers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static io.squall.functions.worker.ItSupport.awaitTrue;
import static io.squall.functions.worker.ItSupport.concat;
import static io.squall.functions.worker.ItSupport.freePort;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Hazelcast grid as G4 ({@code --kv-g4 grid}): a worker copies the blocks it evicts into the grid, and another
 * worker onboards a prefix from there instead of recomputing it, even after the first worker is gone.
 */
class GridTierIT {

    private static final int BLOCK = 16;
    private static final BatchConfig BATCH = new BatchConfig(4, 64, true, 16, true);
    private static final int OUTPUT = 6;

    @TempDir
    Path dir;

    @Test
    void blocksEvictedIntoTheGridOutliveTheirWorkerAndAreOnboardedByAnother() throws Exception {
        Path model = dir.resolve("m.gguf");
        RandomModel.write(new RandomModel.Spec(Architecture.LLAMA, new RandomModel.Shape(64, 2, 4, 2, 96, 512),
                GgmlType.Q8_0, null, 13), model);
        int port = freePort();
        HazelcastInstance member = GridMembers.start(new GridConfig("grid-tier-it-" + port, "127.0.0.1", port,
                List.of("127.0.0.1:" + port), 1, 1000));
        SplittableRandom random = new SplittableRandom(port);
        try (HazelcastDiscovery discovery = new HazelcastDiscovery(member, DiscoveryConfig.defaults());
             KvEventRelay relay = new KvEventRelay(new BlockDirectory(member)::apply, 1024)) {
            KvSharing grid = KvSharing.gridTier(relay, new BlockDirectory(member), member);
            int[] prompt = random.ints(10 * BLOCK, 3, 200).toArray();
            BlockHash[] hashes;
            try (WorkerApplication a = start(new KvConfig(12, BLOCK, 0, null, 0), model, discovery, grid)) {
                hashes = a.worker().ready().get().model().blockHasher().hash(prompt).hashes();
                generate(a, prompt);
                generate(a, random.ints(11 * BLOCK, 3, 200).toArray()); // evicts the prompt's blocks from A's G1
                awaitTrue(() -> Arrays.stream(hashes).allMatch(
                        hash -> member.getMap(GridBlockStore.MAP_NAME).containsKey(hash.value())));
            }

            try (WorkerApplication b = start(new KvConfig(64, BLOCK, 0, null, 0), model, discovery, grid);
                 WorkerApplication reference = start(new KvConfig(64, BLOCK, 0, null, 0), model, discovery,
                         KvSharing.none())) {
                int[] extended = concat(prompt, random.ints(BLOCK + 5, 3, 200).toArray());
                ItSupport.Generated onB = generate(b, extended);

                assertThat(onB.usage().cachedTokens()).as("onboarded from the grid").isEqualTo(prompt.length);
                assertThat(onB.tokens()).as("the tokens a worker computing everything produces")
                        .containsExactly(generate(reference, extended).tokens());
            }
        } finally {
            member.getLifecycleService().terminate();
        }
    }

    private static WorkerApplication start(KvConfig kv, Path model, HazelcastDiscovery discovery, KvSharing sharing)
            throws Exception {
        WorkerApplication worker = WorkerApplication.start(WorkerConfig.loopback(WorkerRole.AGGREGATED, BATCH, kv)
                .withServedModelName("m"), ModelSource.file(model), discovery.discovery(), sharing);
        worker.worker().ready().get(60, TimeUnit.SECONDS);
        return worker;
    }

    private static ItSupport.Generated generate(WorkerApplication worker, int[] prompt) {
        return ItSupport.generate(worker.worker().rsocketPort(),
                new GenerateRequest("grid-" + Arrays.hashCode(prompt), prompt, SamplingOptions.greedy(), OUTPUT, true, -1));
    }
}

package io.squall.gateway;

import io.squall.functions.engine.batch.BatchConfig;
import io.squall.functions.engine.batch.BatchScheduler;
import io.squall.functions.engine.batch.KvPool;
import io.squall.functions.engine.model.Architecture;
import io.squall.functions.engine.model.Model;
import io.squall.functions.engine.model.RandomModel;
import io.squall.functions.engine.model.Transformer;
import io.squall.functions.worker.kv.KvConfig;
import io.squall.functions.worker.kv.KvEventSink;
import io.squall.functions.worker.local.SchedulerGenerateService;
import io.squall.kernels.GgmlType;
import io.squall.kernels.Kernels;
import io.squall.kvgrid.WorkerId;
import io.squall.kvgrid.metrics.KvStats;

import java.nio.file.Path;

/**
 * Real generation for tests: a small random-weight model (built-in byte-level vocabulary, ChatML template)
 * on a {@link BatchScheduler}, served by the worker's in-process {@link SchedulerGenerateService}.
 */
final class TestWorker implements AutoCloseable {

    static final int CONTEXT = 2048;

    final Model model;
    final Kernels kernels;
    final KvPool kv;
    final BatchScheduler scheduler;
    final ModelEndpoint endpoint;

    TestWorker(Path dir) {
        Path file = dir.resolve("random.gguf");
        RandomModel.write(new RandomModel.Spec(Architecture.QWEN2, new RandomModel.Shape(64, 2, 4, 2, 96, CONTEXT),
                GgmlType.Q8_0, null, 7), file);
        model = Model.load(file);
        kernels = Kernels.best();
        var tokenizer = io.squall.functions.engine.tokenizer.Tokenizers.fromGguf(model.metadata());
        KvConfig kvConfig = KvConfig.inMemory(1024);
        kv = kvConfig.open(model.config().kvLayout(kvConfig.blockSize()), new WorkerId(1), KvEventSink.DISCARD, KvStats.NONE);
        scheduler = new BatchScheduler(new Transformer(model.config(), model.weights(), kernels, CONTEXT),
                BatchConfig.defaults(), tokenizer::isEndOfGeneration, kv);
        endpoint = ModelEndpoint.fromGguf(model.metadata(), new SchedulerGenerateService(scheduler),
                ContextLength.fixed(scheduler.maxSequenceTokens()));
    }

    /** Whether every KV block is free again (no sequence holds any). */
    boolean idle() {
        var stats = scheduler.stats();
        return stats.running() == 0 && stats.waiting() == 0 && stats.freeKvBlocks() == stats.totalKvBlocks();
    }

    @Override
    public void close() {
        scheduler.close();
        kv.close();
        kernels.close();
        model.close();
    }
}

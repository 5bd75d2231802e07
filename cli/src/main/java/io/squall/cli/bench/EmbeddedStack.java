package io.squall.cli.bench;

import io.squall.functions.engine.batch.BatchConfig;
import io.squall.functions.engine.batch.BatchScheduler;
import io.squall.functions.engine.batch.KvPool;
import io.squall.functions.engine.model.Model;
import io.squall.functions.engine.model.Transformer;
import io.squall.functions.engine.tokenizer.Tokenizers;
import io.squall.functions.worker.kv.KvConfig;
import io.squall.functions.worker.kv.KvEventSink;
import io.squall.functions.worker.local.SchedulerGenerateService;
import io.squall.gateway.ContextLength;
import io.squall.gateway.GatewayConfig;
import io.squall.gateway.GatewayServer;
import io.squall.gateway.ModelEndpoint;
import io.squall.kernels.Kernels;
import io.squall.kvgrid.WorkerId;
import io.squall.kvgrid.metrics.KvStats;

import java.net.URI;
import java.nio.file.Path;
import java.util.Map;

/**
 * A worker and, optionally, a gateway in this process, on loopback: the system under test of
 * {@code squall bench serve --embedded}, so the gateway's cost can be measured against calling the worker directly.
 */
final class EmbeddedStack implements AutoCloseable {

    /** G1 blocks of 16 tokens, as a worker has by default. */
    private static final int KV_BLOCKS = 4096;

    private final Model model;
    private final Kernels kernels;
    private final KvPool kv;
    private final BatchScheduler scheduler;
    private final ModelEndpoint endpoint;
    private final GatewayServer gateway;

    EmbeddedStack(Path file, String name, boolean withGateway) {
        model = Model.load(file);
        kernels = Kernels.best();
        int context = model.config().contextLength();
        KvConfig kvConfig = KvConfig.inMemory(KV_BLOCKS);
        kv = kvConfig.open(model.config().kvLayout(kvConfig.blockSize()), new WorkerId(1), KvEventSink.DISCARD, KvStats.NONE);
        scheduler = new BatchScheduler(new Transformer(model.config(), model.weights(), kernels, context),
                BatchConfig.defaults(), Tokenizers.fromGguf(model.metadata())::isEndOfGeneration, kv);
        endpoint = ModelEndpoint.fromGguf(model.metadata(), new SchedulerGenerateService(scheduler),
                ContextLength.fixed(scheduler.maxSequenceTokens()));
        gateway = withGateway ? GatewayServer.start(GatewayConfig.loopback().withListen(
                new GatewayConfig.Listen("127.0.0.1", 0, -1, -1)), Map.of(name, endpoint)) : null;
    }

    ModelEndpoint endpoint() {
        return endpoint;
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + gateway.httpPort());
    }

    @Override
    public void close() {
        if (gateway != null) {
            gateway.close();
        }
        scheduler.close();
        kv.close();
        kernels.close();
        model.close();
    }
}

package io.squall.cli.bench;

import io.squall.functions.discovery.Discovery;
import io.squall.functions.discovery.WorkerRole;
import io.squall.functions.discovery.hazelcast.ClusterMember;
import io.squall.functions.engine.batch.BatchConfig;
import io.squall.functions.engine.gguf.GgufFile;
import io.squall.functions.worker.ModelSource;
import io.squall.functions.worker.WorkerConfig;
import io.squall.functions.worker.kv.KvConfig;
import io.squall.functions.worker.micronaut.WorkerApplication;
import io.squall.gateway.GatewayConfig;
import io.squall.gateway.GatewayServer;
import io.squall.gateway.ModelEndpoint;
import io.squall.gateway.routing.RoutedGenerateService;
import io.squall.gateway.routing.Routers;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The system under fuzz, in this process on loopback: a Hazelcast member, a prefill worker and a decode worker
 * (between them every internal route: {@code generate}, {@code prefill}, {@code kv.push}, {@code kv.fetch}) and a
 * gateway serving the client API over RSocket TCP ({@code v1.chat}, {@code v1.completions}) under the model name
 * {@value #MODEL}. Closing stops them all.
 */
final class FuzzStack implements FuzzTarget {

    /** The name the gateway serves the model under. */
    static final String MODEL = "fuzz";

    private final ClusterMember member;
    private final List<WorkerApplication> workers = new ArrayList<>();
    private final GgufFile file;
    private final RoutedGenerateService route;
    private final GatewayServer gateway;

    FuzzStack(Path model) throws Exception {
        member = ClusterMember.join("squall-fuzz", "127.0.0.1", 0, null);
        try {
            for (WorkerRole role : List.of(WorkerRole.PREFILL, WorkerRole.DECODE)) {
                WorkerApplication worker = WorkerApplication.start(WorkerConfig.loopback(role, BatchConfig.defaults(),
                        KvConfig.inMemory(256)).withServedModelName(MODEL), ModelSource.file(model), member.discovery());
                workers.add(worker);
                worker.worker().ready().get(120, TimeUnit.SECONDS);
            }
            file = GgufFile.open(model);
            route = new RoutedGenerateService(member.discovery(), MODEL, Routers.ROUND_ROBIN.policy(null));
            gateway = GatewayServer.start(GatewayConfig.loopback().withListen(new GatewayConfig.Listen("127.0.0.1", 0, 0, -1)),
                    Map.of(MODEL, ModelEndpoint.fromGguf(file.metadata(), route, route)));
        } catch (Exception | Error e) {
            close();
            throw e;
        }
    }

    @Override
    public WireFuzzer.Targets targets() {
        return FuzzTarget.choose(member.discovery().instances(), "127.0.0.1", gateway.rsocketTcpPort(), MODEL);
    }

    @Override
    public Discovery discovery() {
        return member.discovery();
    }

    @Override
    public void close() {
        if (gateway != null) {
            gateway.close();
        }
        if (route != null) {
            route.close();
        }
        workers.forEach(WorkerApplication::close);
        if (file != null) {
            file.close();
        }
        member.close();
    }
}

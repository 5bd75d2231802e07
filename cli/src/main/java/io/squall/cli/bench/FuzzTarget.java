package io.squall.cli.bench;

import io.squall.functions.discovery.Discovery;
import io.squall.functions.discovery.WorkerInstance;
import io.squall.functions.discovery.WorkerRole;

import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * What {@code squall bench fuzz} sends to: the stages' addresses ({@link WireFuzzer.Targets}) and the cluster's
 * discovery, from which the fuzzer reads the workers registered before and after the run (a worker that crashed
 * and came back registers under a new instance id). Closing releases what the target holds (stages it started,
 * or its cluster membership).
 */
interface FuzzTarget extends AutoCloseable {

    /** Where each route is served. */
    WireFuzzer.Targets targets();

    /** The cluster's discovery, as this process sees it. */
    Discovery discovery();

    /** The instance ids of the workers registered now, sorted by their printed form. */
    default Set<String> workers() {
        Set<String> ids = new TreeSet<>();
        for (WorkerInstance worker : discovery().instances()) {
            ids.add(worker.id().toString());
        }
        return ids;
    }

    @Override
    void close();

    /**
     * The targets among {@code workers}: generate, kv.push and kv.fetch go to a decode worker (else an aggregated
     * one), prefill to a prefill worker (else the same worker, which answers it NOT_FOUND); the client API to
     * {@code gateway}'s port, naming {@code model}.
     *
     * @throws IllegalStateException if no worker serves generate
     */
    static WireFuzzer.Targets choose(List<WorkerInstance> workers, String host, int gatewayPort, String model) {
        List<WorkerInstance> sorted = workers.stream().sorted(Comparator.comparing(w -> w.id().toString())).toList();
        WorkerInstance decode = first(sorted, WorkerRole.DECODE);
        if (decode == null) {
            decode = first(sorted, WorkerRole.AGGREGATED);
        }
        if (decode == null) {
            throw new IllegalStateException("no decode or aggregated worker is registered: nothing serves generate");
        }
        WorkerInstance prefill = first(sorted, WorkerRole.PREFILL);
        if (prefill == null) {
            prefill = decode;
        }
        return new WireFuzzer.Targets(new WireFuzzer.Address(decode.host(), decode.rsocketPort()),
                new WireFuzzer.Address(prefill.host(), prefill.rsocketPort()), new WireFuzzer.Address(host, gatewayPort), model);
    }

    private static WorkerInstance first(List<WorkerInstance> workers, WorkerRole role) {
        return workers.stream().filter(w -> w.role() == role).findFirst().orElse(null);
    }
}

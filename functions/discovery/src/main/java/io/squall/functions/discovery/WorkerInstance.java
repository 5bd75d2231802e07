package io.squall.functions.discovery;

import java.net.URI;
import java.util.Objects;

/**
 * A registered worker: where to reach it, what it serves and how loaded it is.
 *
 * @param id its instance id
 * @param role its role in the graph
 * @param model the model it serves, with the limits gateways and routers take from it
 * @param host the address its servers bind, reachable by the cluster
 * @param rsocketPort RSocket over TCP
 * @param httpPort health, metrics and RSocket over WebSocket at {@code /rsocket}
 * @param capacity sequences it runs at once
 * @param load its latest load report
 */
public record WorkerInstance(InstanceId id, WorkerRole role, ServedModel model, String host, int rsocketPort, int httpPort,
                             int capacity, LoadReport load) {

    public WorkerInstance {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(load, "load");
    }

    /** The RSocket-over-WebSocket address. */
    public URI websocketUri() {
        return URI.create("ws://" + host + ":" + httpPort + "/rsocket");
    }

    /** This instance with another load report. */
    public WorkerInstance withLoad(LoadReport newLoad) {
        return new WorkerInstance(id, role, model, host, rsocketPort, httpPort, capacity, newLoad);
    }
}

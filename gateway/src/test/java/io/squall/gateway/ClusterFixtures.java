package io.squall.gateway;

import com.hazelcast.core.HazelcastInstance;
import io.squall.functions.engine.model.Architecture;
import io.squall.functions.engine.model.RandomModel;
import io.squall.kernels.GgmlType;
import io.squall.kvgrid.grid.GridConfig;
import io.squall.kvgrid.grid.GridMembers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;

/** The real parts the cluster integration tests start: a one-member Hazelcast cluster and a small model file. */
final class ClusterFixtures {

    private ClusterFixtures() {
    }

    /** A member on a free loopback port, forming a cluster of its own named {@code prefix} plus the port. */
    static HazelcastInstance member(String prefix) {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return GridMembers.start(new GridConfig(prefix + port, "127.0.0.1", port, List.of("127.0.0.1:" + port), 1, 1000));
    }

    /** Writes a tiny random-weight Q8_0 llama (dim 64, 2 layers, built-in byte vocabulary) to {@code file}. */
    static Path smallLlama(Path file, int context, long seed) {
        RandomModel.write(new RandomModel.Spec(Architecture.LLAMA, new RandomModel.Shape(64, 2, 4, 2, 96, context),
                GgmlType.Q8_0, null, seed), file);
        return file;
    }
}

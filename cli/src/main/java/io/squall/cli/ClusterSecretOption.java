package io.squall.cli;

import io.squall.functions.api.auth.ClusterSecret;
import picocli.CommandLine.Option;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

/**
 * The secret that closes a cluster, shared by {@code serve}, {@code worker} and {@code gateway}: read from
 * {@code --cluster-secret-file FILE} ({@code serve}, {@code worker}, {@code gateway}, {@code planner}), or taken from the environment variable {@value #ENV} (how a Kubernetes
 * Secret reaches a container). Without either the cluster is open, as in development: every peer that reaches a
 * stage's port is served. The secret is never an option value, so it does not show in the process list.
 */
final class ClusterSecretOption {

    /** The environment variable holding the secret itself. */
    static final String ENV = "SQUALL_CLUSTER_SECRET";

    @Option(names = "--cluster-secret-file",
            description = "file holding the secret every stage of the cluster shares (at least 16 bytes; trailing whitespace ignored); "
                    + "peers without it are refused. Or set " + ENV + ". Default: none, an open cluster")
    Path file;

    /**
     * The options that give a worker process this process starts the same secret: {@code --cluster-secret-file}
     * when it was given (the variable {@value #ENV} is inherited with the environment).
     */
    java.util.List<String> asArguments() {
        return file == null ? java.util.List.of() : java.util.List.of("--cluster-secret-file", file.toAbsolutePath().toString());
    }

    /** The secret from the option or this process's environment. */
    ClusterSecret secret() {
        return secret(System.getenv());
    }

    /**
     * The secret from {@code --cluster-secret-file}, else from {@value #ENV} in {@code environment}, else none.
     *
     * @throws IllegalArgumentException if both are given, or the secret is unreadable, too short or too long
     */
    ClusterSecret secret(Map<String, String> environment) {
        String value = environment.get(ENV);
        boolean fromEnvironment = value != null && !value.isBlank();
        if (file != null && fromEnvironment) {
            throw new IllegalArgumentException("give the cluster secret once: --cluster-secret-file or " + ENV + ", not both");
        }
        if (file != null) {
            return ClusterSecret.read(file);
        }
        if (fromEnvironment) {
            try {
                return ClusterSecret.of(value.strip().getBytes(StandardCharsets.UTF_8));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(ENV + ": " + e.getMessage(), e);
            }
        }
        return ClusterSecret.open();
    }
}

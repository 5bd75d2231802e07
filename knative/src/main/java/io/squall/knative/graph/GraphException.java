package io.squall.knative.graph;

import java.util.Objects;

/**
 * A graph file that cannot be deployed: its message starts with the path of the offending field, e.g.
 * {@code stages.decode.replicas.max: must be >= min (2), got 1}.
 */
public final class GraphException extends IllegalArgumentException {

    private final String path;

    /**
     * @param path the field's path from the document root, dot-separated ({@code stages.decode.replicas.max});
     *             list items as {@code [i]}, keys with dots as {@code ["nvidia.com/gpu"]}; empty for the document itself
     * @param problem what is wrong with it, as a sentence fragment
     */
    public GraphException(String path, String problem) {
        super((path.isEmpty() ? "graph" : path) + ": " + Objects.requireNonNull(problem, "problem"));
        this.path = path;
    }

    /** The offending field's path ({@code stages.decode.replicas.max}); empty for the document as a whole. */
    public String path() {
        return path;
    }
}

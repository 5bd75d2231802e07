package io.squall.knative;

import java.nio.file.Path;

/** Graphs the knative module's tests share. */
public final class TestGraphs {

    /** The repository's examples directory, seen from a module. */
    public static final Path EXAMPLES = Path.of("..", "examples");
    /** A small valid disaggregated graph the invalid cases edit one field of. */
    public static final String BASE = """
            name: demo
            namespace: serving
            image: registry.example.com/squall:0.1.0
            model: {source: "hf:owner/repo/model-q8_0.gguf"}
            slo: {ttftMs: 500, itlMs: 50}
            stages:
              gateway: {replicas: {min: 1, max: 2}}
              prefill:
                replicas: {min: 1, max: 4}
                resources:
                  requests: {cpu: "2", memory: 4Gi}
                  limits: {memory: 4Gi, nvidia.com/gpu: 1}
              decode:
                replicas: {min: 2, max: 8}
                resources: {limits: {memory: 8Gi}}
                kv: {blocks: 1024, hostMemory: 2Gi}
              planner: {mode: load}
            """;

    private TestGraphs() {
    }
}

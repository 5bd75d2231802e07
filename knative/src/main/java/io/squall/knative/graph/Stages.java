package io.squall.knative.graph;

import io.squall.scheduler.Pool;

import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The stages of a graph: a gateway, worker pools (one aggregated pool, or a prefill pool and a decode pool),
 * and optionally the planner that sizes the pools.
 *
 * @param gateway the OpenAI gateway
 * @param workers the worker pools by {@link Pool}: exactly {@code AGGREGATED}, or exactly {@code PREFILL} and
 *                {@code DECODE}; iterated in {@link Pool} order
 * @param planner the planner, or {@code null} when the pools keep their initial sizes
 */
public record Stages(GatewayStage gateway, Map<Pool, WorkerStage> workers, PlannerStage planner) {

    public Stages {
        Objects.requireNonNull(gateway, "gateway");
        Set<Pool> pools = workers.keySet();
        if (!pools.equals(Set.of(Pool.AGGREGATED)) && !pools.equals(Set.of(Pool.PREFILL, Pool.DECODE))) {
            throw new IllegalArgumentException("a graph has an aggregated pool, or a prefill and a decode pool; got " + pools);
        }
        workers = Collections.unmodifiableMap(new EnumMap<>(workers));
    }

    /** Whether prefill and decode run in pools of their own. */
    public boolean disaggregated() {
        return workers.containsKey(Pool.DECODE);
    }

    /**
     * How many replicas a stage may run.
     *
     * @param min fewest replicas, &ge; 1 (Knative does not reliably wake a revision pinned at zero, see
     *            {@code docs/knative.md})
     * @param max most replicas, &ge; min
     * @param initial replicas when the graph is first deployed, within min..max
     */
    public record ReplicaBounds(int min, int max, int initial) {

        public ReplicaBounds {
            if (min < 1 || max < min || initial < min || initial > max) {
                throw new IllegalArgumentException("replicas need 1 <= min <= initial <= max, got min=" + min
                        + " initial=" + initial + " max=" + max);
            }
        }

        /** Exactly {@code n} replicas. */
        public static ReplicaBounds fixed(int n) {
            return new ReplicaBounds(n, n, n);
        }
    }

    /**
     * Kubernetes resource requests and limits of a stage's container, as quantities ({@code 500m}, {@code 8Gi},
     * {@code 1}) keyed by resource name ({@code cpu}, {@code memory}, {@code nvidia.com/gpu}, …); sorted by name.
     */
    public record Resources(SortedMap<String, String> requests, SortedMap<String, String> limits) {

        /** The extended resource a stage asks for GPUs by. */
        public static final String GPU = "nvidia.com/gpu";

        public Resources {
            requests = Collections.unmodifiableSortedMap(new TreeMap<>(requests));
            limits = Collections.unmodifiableSortedMap(new TreeMap<>(limits));
        }

        /** No requests and no limits. */
        public static Resources none() {
            return new Resources(new TreeMap<>(), new TreeMap<>());
        }
    }

    /**
     * How a stage's process runs, whatever the stage.
     *
     * @param resources the container's requests and limits
     * @param jvmOptions extra JVM options, in order (heap, GC, {@code -D} properties)
     * @param timeoutSeconds Knative's {@code timeoutSeconds}: the longest request through Knative's route, and the
     *                       pod's termination grace period, so the time a stopping replica has to drain
     * @param startupSeconds how long a replica may take to start serving (model download and mapping included)
     *                       before Kubernetes restarts it and Knative gives up on a new revision
     */
    public record StageRuntime(Resources resources, List<String> jvmOptions, int timeoutSeconds, int startupSeconds) {

        /** Knative's default ceiling for {@code timeoutSeconds} ({@code max-revision-timeout-seconds}). */
        public static final int MAX_TIMEOUT_SECONDS = 600;

        public StageRuntime {
            Objects.requireNonNull(resources, "resources");
            jvmOptions = List.copyOf(jvmOptions);
            if (timeoutSeconds < 1 || timeoutSeconds > MAX_TIMEOUT_SECONDS) {
                throw new IllegalArgumentException("timeoutSeconds must be within 1.." + MAX_TIMEOUT_SECONDS);
            }
            if (startupSeconds < 10) {
                throw new IllegalArgumentException("startupSeconds must be at least 10");
            }
        }
    }

    /**
     * The OpenAI gateway stage. Knative's concurrency autoscaler sizes it within {@code replicas}: its load is
     * HTTP requests through Knative's route, which Knative sees.
     *
     * @param replicas bounds for Knative's autoscaler
     * @param runtime its process
     * @param concurrencyTarget concurrent requests per replica Knative aims for ({@code autoscaling.knative.dev/target})
     * @param apiKeysSecret a Secret in the graph's namespace whose key {@code keys} lists the accepted API keys one per
     *                      line, or {@code null} for no authentication
     */
    public record GatewayStage(ReplicaBounds replicas, StageRuntime runtime, int concurrencyTarget, String apiKeysSecret) {

        public GatewayStage {
            Objects.requireNonNull(replicas, "replicas");
            Objects.requireNonNull(runtime, "runtime");
            if (concurrencyTarget < 1) {
                throw new IllegalArgumentException("concurrencyTarget must be at least 1");
            }
        }
    }

    /**
     * A worker pool. With a planner its replica count is the planner's; without one it stays at
     * {@code replicas.initial}. Knative's own autoscaler never sizes it: it cannot see RSocket streams.
     *
     * @param replicas bounds the planner keeps to
     * @param runtime its processes
     * @param engine batching and kernels
     * @param kv KV cache tiers per worker
     * @param disaggregation when decode workers hand prompts to prefill workers; {@code null} except in a decode pool
     */
    public record WorkerStage(ReplicaBounds replicas, StageRuntime runtime, Engine engine, KvTiers kv,
                              Disaggregation disaggregation) {

        public WorkerStage {
            Objects.requireNonNull(replicas, "replicas");
            Objects.requireNonNull(runtime, "runtime");
            Objects.requireNonNull(engine, "engine");
            Objects.requireNonNull(kv, "kv");
        }
    }

    /**
     * How a worker's engine runs.
     *
     * @param maxSequences sequences batched at once
     * @param context longest sequence, in tokens
     * @param kernels the kernel executor ({@code auto}, {@code cpu}, {@code reference}, {@code tornadovm}), or
     *                {@code null} for the command's default
     * @param kernelThreads threads of the CPU kernel pool, or 0 for one per core
     */
    public record Engine(int maxSequences, int context, String kernels, int kernelThreads) {

        /** The executors {@code --kernels} accepts. */
        public static final List<String> KERNELS = List.of("auto", "cpu", "reference", "tornadovm");

        public Engine {
            if (maxSequences < 1 || context < 2 || kernelThreads < 0) {
                throw new IllegalArgumentException("maxSequences >= 1, context >= 2 and kernelThreads >= 0 are required");
            }
            if (kernels != null && !KERNELS.contains(kernels)) {
                throw new IllegalArgumentException("kernels must be one of " + KERNELS);
            }
        }
    }

    /**
     * A worker's KV cache tiers (see {@code docs/disaggregation.md} and the README's tiers).
     *
     * @param blocks G1 blocks of 16 tokens
     * @param hostBytes G2 off-heap host memory in bytes, 0 for none; counts against the container's memory
     * @param diskBytes G3 local disk in bytes, 0 for none; an {@code emptyDir} of this size per pod
     */
    public record KvTiers(int blocks, long hostBytes, long diskBytes) {

        public KvTiers {
            if (blocks < 1 || hostBytes < 0 || diskBytes < 0) {
                throw new IllegalArgumentException("KV blocks must be >= 1 and tier sizes >= 0");
            }
        }
    }

    /**
     * When a decode worker has a prompt prefilled by the prefill pool.
     *
     * @param minTokens only prompts with more uncached tokens than this
     * @param prefillMaxQueue only prefill workers with at most this many waiting sequences
     */
    public record Disaggregation(int minTokens, int prefillMaxQueue) {

        public Disaggregation {
            if (minTokens < 0 || prefillMaxQueue < 0) {
                throw new IllegalArgumentException("minTokens and prefillMaxQueue must be >= 0");
            }
        }
    }

    /**
     * The planner: one replica that sizes the worker pools through the Knative connector.
     *
     * @param runtime its process
     * @param intervalSeconds seconds between decisions
     * @param mode {@code sla} (sizes pools from a profile against the graph's SLOs) or {@code load} (KV usage and
     *             queue thresholds)
     * @param profile the worker profile ({@code squall bench profile}) the {@code sla} mode sizes pools from: a
     *                file path as written in the graph, relative to the graph file; {@code null} in {@code load} mode
     */
    public record PlannerStage(StageRuntime runtime, int intervalSeconds, String mode, String profile) {

        /** The planner's modes. */
        public static final List<String> MODES = List.of("sla", "load");

        public PlannerStage {
            Objects.requireNonNull(runtime, "runtime");
            if (intervalSeconds < 1) {
                throw new IllegalArgumentException("intervalSeconds must be at least 1");
            }
            if (!MODES.contains(mode)) {
                throw new IllegalArgumentException("planner mode must be one of " + MODES);
            }
            if (mode.equals("sla") != (profile != null)) {
                throw new IllegalArgumentException("the sla mode needs a profile and the load mode takes none");
            }
        }
    }
}

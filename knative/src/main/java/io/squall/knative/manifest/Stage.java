package io.squall.knative.manifest;

import io.squall.scheduler.Pool;

import java.util.Locale;

/** The stages a graph deploys, each as one Knative Service named {@code GRAPH-STAGE}. */
public enum Stage {
    GATEWAY,
    AGGREGATED,
    PREFILL,
    DECODE,
    PLANNER;

    /** The stage's name in {@code graph.yaml}, labels and object names: {@code gateway}, {@code decode}, … */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The worker stage of a planner pool. */
    public static Stage of(Pool pool) {
        return switch (pool) {
            case AGGREGATED -> AGGREGATED;
            case PREFILL -> PREFILL;
            case DECODE -> DECODE;
        };
    }
}

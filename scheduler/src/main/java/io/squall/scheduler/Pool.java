package io.squall.scheduler;

/**
 * A pool of interchangeable workers that the planner sizes as one: the stages of a graph. An aggregated graph
 * has one pool; a disaggregated graph has a prefill pool and a decode pool, scaled independently.
 */
public enum Pool {
    /** Workers that prefill and decode their own requests. */
    AGGREGATED,
    /** Workers that compute prompts' KV for decode workers. */
    PREFILL,
    /** Workers that own sequences and decode them. */
    DECODE
}

package io.squall.kvgrid;

/** Where a KV block lives, fastest first. Blocks are offloaded down the tiers and onboarded back up. */
public enum Tier {
    /** The worker's working pool, read by attention. */
    G1,
    /** Off-heap host memory of the worker. */
    G2,
    /** Files on the worker's local disk. */
    G3,
    /** The Hazelcast grid, shared by every worker. */
    G4
}

package io.squall.kvgrid;

/** Identifies a worker (one KV block pool) in the cluster. */
public record WorkerId(long value) {

    @Override
    public String toString() {
        return "worker-" + Long.toUnsignedString(value, 16);
    }
}

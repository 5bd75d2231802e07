package io.squall.kvgrid.pool;

/** Which half of a layer's cache entry: keys or values. The ordinal is the half's position in a layer. */
public enum KvPart {
    K,
    V
}

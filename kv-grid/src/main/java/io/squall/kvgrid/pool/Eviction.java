package io.squall.kvgrid.pool;

import java.util.Locale;

/** The eviction order of a pool's cached blocks, by the name operators choose it with ({@code --kv-eviction}). */
public enum Eviction {
    /** Least recently released first ({@link EvictionPolicy#lru()}). */
    LRU,
    /**
     * LRU with TinyLFU admission ({@link EvictionPolicy#tinyLfu(int)}): a one-off prefix cannot push out one
     * used often, at the cost of a frequency sketch of about one byte per block.
     */
    TINYLFU;

    /** The policy for a pool of {@code capacityBlocks} blocks. */
    public EvictionPolicy policy(int capacityBlocks) {
        return switch (this) {
            case LRU -> EvictionPolicy.lru();
            case TINYLFU -> EvictionPolicy.tinyLfu(capacityBlocks);
        };
    }

    /** Parses {@code lru} or {@code tinylfu}, case-insensitively. */
    public static Eviction parse(String text) {
        for (Eviction eviction : values()) {
            if (eviction.name().equalsIgnoreCase(text)) {
                return eviction;
            }
        }
        throw new IllegalArgumentException("KV eviction must be lru or tinylfu, got " + text);
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}

package io.squall.kvgrid.pool;

import java.util.Objects;

/**
 * How to build a {@link BlockPool}.
 *
 * @param layout    the page layout
 * @param numBlocks pages in the pool, &gt; 0; the pool takes {@code numBlocks × layout.blockBytes()}
 *                  bytes of off-heap memory
 */
public record BlockPoolConfig(KvLayout layout, int numBlocks) {
    public BlockPoolConfig {
        Objects.requireNonNull(layout, "layout");
        if (numBlocks <= 0) {
            throw new IllegalArgumentException("numBlocks must be > 0");
        }
    }
}

/**
 * {@link io.squall.kvgrid.index.flat.FlatRadixIndex}: the radix index stored flat, as primitive
 * open-addressing tables keyed by chained block hash (a hash names the whole prefix path, so no tree
 * edges are needed). Per-node worker presence is a bit set per tier; per-worker reverse sets make
 * removing a block or a whole worker O(1) per block. No boxing on the event or lookup paths.
 */
package io.squall.kvgrid.index.flat;

/**
 * {@link io.squall.kvgrid.index.flat.FlatRadixIndex}: the radix index stored flat, as primitive
 * open-addressing tables keyed by chained block hash (a hash names the whole prefix path, so no tree
 * edges are needed). Per-node worker presence is a bit set per tier; a per-worker append-only log
 * of stored blocks ({@code BlockLog}, compacted lazily) makes dropping a whole worker O(1) per block
 * while a Removed event touches only the node. No boxing on the event or lookup paths.
 */
package io.squall.kvgrid.index.flat;

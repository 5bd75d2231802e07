/**
 * Block hashing compatible with Dynamo's kv-router and vLLM-style KV event streams: {@link
 * io.squall.kvgrid.hash.BlockHasher} turns token ids into {@link io.squall.kvgrid.LocalBlockHash}es
 * (one block's tokens) and chained {@link io.squall.kvgrid.BlockHash}es (the whole prefix), and
 * {@link io.squall.kvgrid.hash.BlockChain} extends a sequence's chain as tokens arrive.
 */
package io.squall.kvgrid.hash;

/**
 * The lower KV tiers and moving blocks between them and the G1 pool. {@link
 * io.squall.kvgrid.offload.BlockStore} is one tier (G2 {@link io.squall.kvgrid.offload.HostBlockStore},
 * G3 {@link io.squall.kvgrid.offload.DiskBlockStore}; G4 is the Hazelcast grid in {@code kvgrid.grid});
 * the {@link io.squall.kvgrid.offload.OffloadManager} copies evicted G1 blocks down by an {@link
 * io.squall.kvgrid.offload.OffloadPolicy} and onboards prefixes back, all I/O on its own thread.
 */
package io.squall.kvgrid.offload;

/**
 * The lower KV tiers and moving blocks between them and the G1 pool. {@link
 * io.squall.kvgrid.offload.BlockStore} is one tier (G2 {@link io.squall.kvgrid.offload.HostBlockStore},
 * G3 {@link io.squall.kvgrid.offload.DiskBlockStore}; G4 is the Hazelcast grid in {@code kvgrid.grid});
 * the {@link io.squall.kvgrid.offload.OffloadManager} copies committed G1 blocks down eagerly by an {@link
 * io.squall.kvgrid.offload.OffloadPolicy} on its write lane and onboards prefixes back into G1 pages on lanes
 * of their own ({@link io.squall.kvgrid.offload.OnboardTransfer}, streamed a layer at a time from host
 * memory), all I/O off the scheduler's thread.
 */
package io.squall.kvgrid.offload;

/**
 * The Hazelcast glue (the only package importing Hazelcast): an embedded member built from a {@link
 * io.squall.kvgrid.grid.GridConfig}, joining by TCP/IP seeds or, in Kubernetes, through a headless Service
 * ({@link io.squall.kvgrid.grid.KubernetesJoin}), the cluster-wide {@link io.squall.kvgrid.grid.BlockDirectory}
 * (block hash → {@link io.squall.kvgrid.grid.BlockLocations}, changed only by entry processors, backed
 * up) and {@link io.squall.kvgrid.grid.GridBlockStore}, the G4 tier: checksummed block bytes in a
 * bounded, backed-up distributed map. Everything crossing the wire is {@code IdentifiedDataSerializable}.
 */
package io.squall.kvgrid.grid;

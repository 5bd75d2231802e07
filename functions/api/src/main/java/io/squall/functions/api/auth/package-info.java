/**
 * How the stages of one cluster recognise each other: the {@link io.squall.functions.api.auth.ClusterSecret} they
 * share (read from a file; only keys derived from it are kept), the {@link io.squall.functions.api.auth.SetupProof}
 * a stage sends in the SETUP frame of each RSocket connection it opens, and the
 * {@link io.squall.functions.api.auth.SetupVerifier} that accepts a proof once, near the time it was made. No
 * framework code: the RSocket side is {@code rsocket.StageServers} and {@code rsocket.StageConnections}.
 */
package io.squall.functions.api.auth;

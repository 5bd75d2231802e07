/**
 * Putting a graph's manifests on a cluster: {@link io.squall.knative.deploy.ClusterDeployer} applies them
 * (server-side apply), deletes them, or diffs them against what the cluster holds, through fabric8's client.
 */
package io.squall.knative.deploy;

/**
 * A graph's Kubernetes objects ({@link io.squall.knative.manifest.Manifests}): one Knative Service per stage on
 * Knative's runtime contract, the planner's least-privilege RBAC, the graph as a ConfigMap, the headless Service
 * of the graph's Hazelcast cluster, and its network policies; written deterministically, one file per object.
 */
package io.squall.knative.manifest;

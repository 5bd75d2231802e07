/**
 * The graph file ({@code graph.yaml}): the {@link io.squall.knative.graph.Graph} model of a deployment (model,
 * stages with their replicas, resources, JVM and kernel options, KV tiers, SLOs, router policy, image), its
 * parser with field-path errors and canonical writer ({@link io.squall.knative.graph.GraphYaml}), and its JSON
 * schema ({@code graph.schema.json}). Framework-free apart from Jackson.
 */
package io.squall.knative.graph;

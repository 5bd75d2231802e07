/**
 * Deploying Squall on Knative: the graph file ({@code graph}), the manifests it becomes ({@code manifest}),
 * applying them to a cluster ({@code deploy}) and the planner's Knative connector ({@code scaling}). Used by
 * {@code squall deploy knative} and {@code squall planner --connector knative}.
 */
package io.squall.knative;

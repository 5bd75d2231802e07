/**
 * The planner's Knative connector: {@link io.squall.knative.scaling.KnativeScalingConnector} sets a pool's
 * replicas on its running Revision without creating a new one.
 */
package io.squall.knative.scaling;

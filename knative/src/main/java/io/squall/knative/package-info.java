/**
 * Graph spec to Knative Services, container images, the Knative connector for the planner and squall deploy.
 */
package io.squall.knative;

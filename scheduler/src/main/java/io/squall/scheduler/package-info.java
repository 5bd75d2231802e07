/**
 * The planner: metric collection, load predictors, profiles, replica targets and the connectors that apply them.
 */
package io.squall.scheduler;

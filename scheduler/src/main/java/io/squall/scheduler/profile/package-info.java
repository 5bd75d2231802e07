/**
 * Worker profiles: what one worker of a model on some hardware does against load ({@link
 * io.squall.scheduler.profile.Profile}), the planner's input and the mock engine's timing; read and written as
 * JSON by {@link io.squall.scheduler.profile.ProfileFiles}.
 */
package io.squall.scheduler.profile;

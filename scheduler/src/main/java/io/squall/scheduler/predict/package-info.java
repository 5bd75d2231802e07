/**
 * Load predictors: the next interval's request rate, input length and output length from the intervals observed
 * so far ({@link io.squall.scheduler.predict.LoadPredictor}): the last value, a moving average, or a Kalman filter
 * over a local linear trend.
 */
package io.squall.scheduler.predict;

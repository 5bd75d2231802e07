/**
 * The mock engine: a {@link io.squall.functions.engine.model.ForwardPass} that replaces computation by a timing
 * model ({@link io.squall.functions.engine.mock.StepTimingModel}, fitted to measured steps by
 * {@link io.squall.functions.engine.mock.StepTimingFit}) and tokens by a deterministic function of the prefix
 * ({@link io.squall.functions.engine.mock.MockTokens}), so that the real scheduler, KV pool, workers, router
 * and planner can run at cluster scale on a small machine. {@link io.squall.functions.engine.mock.StepPacer}
 * turns modelled seconds into wall-clock time at a speedup.
 */
package io.squall.functions.engine.mock;

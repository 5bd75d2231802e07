package io.squall.cli;

import io.squall.gateway.routing.WorkerLatency;
import io.squall.scheduler.profile.Profile;
import io.squall.scheduler.sizing.PerformanceModel;

/** A worker's speed for the router, from a profile's tables as the planner reads them. */
record ProfileLatency(PerformanceModel model) implements WorkerLatency {

    static ProfileLatency of(Profile profile) {
        return new ProfileLatency(new PerformanceModel(profile));
    }

    @Override
    public double prefillMs(double tokens) {
        return model.ttftAloneMs(tokens);
    }

    @Override
    public double itlMs(double sequences, double contextTokens) {
        return model.itlMs(sequences, contextTokens);
    }
}

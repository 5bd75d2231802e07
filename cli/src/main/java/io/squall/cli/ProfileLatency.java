package io.squall.cli;

import io.squall.gateway.routing.WorkerLatency;
import io.squall.scheduler.profile.Profile;
import io.squall.scheduler.sizing.PerformanceModel;

/**
 * A worker's speed for the router, from a profile's tables as the planner reads them, and its onboarding time
 * ({@link Profile.Timing#onboardNsPerToken}).
 */
record ProfileLatency(PerformanceModel model, double onboardNsPerToken) implements WorkerLatency {

    static ProfileLatency of(Profile profile) {
        return new ProfileLatency(new PerformanceModel(profile), profile.timing().onboardNsPerToken());
    }

    @Override
    public double prefillMs(double tokens) {
        return model.ttftAloneMs(tokens);
    }

    @Override
    public double itlMs(double sequences, double contextTokens) {
        return model.itlMs(sequences, contextTokens);
    }

    @Override
    public double onboardMs(double tokens) {
        return tokens * onboardNsPerToken / 1e6;
    }
}

package io.squall.scheduler.observe;

/**
 * The cluster's traffic over one interval, summed over its gateways, in the planner's time (simulated time when
 * the workers are mocks at a speedup). A figure that could not be measured (no request finished) is NaN.
 *
 * @param requestsPerSecond requests that arrived per second
 * @param inputTokens       mean prompt length of the requests that finished
 * @param outputTokens      mean output length of the requests that finished
 * @param cacheHitRatio     share of their prompt tokens served from cache
 * @param prefillCv2        the squared coefficient of variation of the prompt tokens each computed (not served from
 *                          cache): 0 when all prompts are alike, about 1.4 for Mooncake's traces; queueing behind long
 *                          prompts grows with it
 * @param ttftMs            mean time to first token
 * @param ttftP90Ms         its 90th percentile
 * @param itlMs             mean time between tokens
 * @param itlP90Ms          its 90th percentile
 * @param finished          requests that finished in the interval
 * @param failed            requests that failed in it (server errors)
 */
public record Traffic(double requestsPerSecond, double inputTokens, double outputTokens, double cacheHitRatio,
                      double prefillCv2, double ttftMs, double ttftP90Ms, double itlMs, double itlP90Ms, long finished, long failed) {

    /** No gateway reported anything. */
    public static Traffic none() {
        return new Traffic(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, 0,
                0);
    }
}

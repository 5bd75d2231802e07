package io.squall.gateway;

import java.util.OptionalInt;

/**
 * How long one sequence of a model may be, as the workers that serve it say now: the gateway checks every
 * prompt against it, in one place, before routing. For a routed model it is the smallest context length that
 * the model's workers advertise in discovery, so whichever worker a request goes to, it fits.
 *
 * <p>Implementations are thread-safe and cheap to call once per request.
 */
@FunctionalInterface
public interface ContextLength {

    /** Tokens (prompt plus generated) every worker that may serve the model runs; empty when none serves it now. */
    OptionalInt tokens();

    /** A context that never changes, e.g. of an in-process scheduler. */
    static ContextLength fixed(int tokens) {
        if (tokens < 2) {
            throw new IllegalArgumentException("a context holds at least 2 tokens, got " + tokens);
        }
        OptionalInt value = OptionalInt.of(tokens);
        return () -> value;
    }
}

package io.squall.functions.engine.batch;

/** The outcome of {@link BatchScheduler#submit}: queued, or rejected with the reason. */
public sealed interface Admission {

    /** The sequence is queued; drive it through {@code generation}. */
    record Queued(Generation generation) implements Admission {
    }

    /**
     * The sequence was not accepted.
     *
     * @param overloaded true when the queue is full (retry later), false when the request can never run
     */
    record Rejected(String reason, boolean overloaded) implements Admission {
    }
}

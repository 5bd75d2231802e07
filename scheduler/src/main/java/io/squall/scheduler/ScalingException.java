package io.squall.scheduler;

/** A {@link ScalingConnector} could not apply a decision: the platform refused it or could not be reached. */
public final class ScalingException extends RuntimeException {

    public ScalingException(String message, Throwable cause) {
        super(message, cause);
    }

    public ScalingException(String message) {
        super(message);
    }
}

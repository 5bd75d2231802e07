package io.squall.functions.discovery;

/** An instance's live registration; closing it deregisters the instance at once. Thread-safe, idempotent. */
public interface Registration extends AutoCloseable {

    InstanceId id();

    @Override
    void close();
}

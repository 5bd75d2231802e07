package io.squall.functions.worker.kv;

import io.squall.kvgrid.KvEvent;

import java.util.List;
import java.util.function.Consumer;

/**
 * Where a worker's KV events go: called with each step's batch on the scheduler thread, so it must not
 * block ({@link KvEventRelay} hands batches to a thread of its own).
 */
@FunctionalInterface
public interface KvEventSink extends Consumer<List<KvEvent>> {

    /** Keeps events inside the worker: for a worker no router follows. */
    KvEventSink DISCARD = batch -> { };
}

package io.squall.gateway.admission;

import io.squall.gateway.openai.ApiError;
import io.squall.gateway.openai.ApiException;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Bounds the requests the gateway runs at once: up to {@code maxInFlight} hold a {@link Permit}; up to
 * {@code maxQueued} more wait for one in arrival order; any further request is refused with
 * {@link ApiError#OVERLOADED} (503) at once. The waiting queue is the only buffer and it is bounded.
 *
 * <p>Thread-safe: the counters and the queue change under one lock, held for O(1) work; permits are handed
 * over outside it. A waiter cancelled before it gets a permit leaves the queue; a permit handed to a
 * waiter cancelled at the same moment is released again, so permits never leak.
 */
public final class InFlightLimiter {

    private final int maxInFlight;
    private final int maxQueued;
    private final ArrayDeque<Waiter> queue = new ArrayDeque<>();
    private final AtomicInteger inFlightGauge = new AtomicInteger();
    private final AtomicInteger queuedGauge = new AtomicInteger();
    private int inFlight;
    /** Set by {@link #drain()}: completes when no request holds a permit or waits for one. */
    private CompletableFuture<Void> idle;

    /**
     * @param maxInFlight requests that run at once, at least 1
     * @param maxQueued   requests that may wait for a permit, at least 0
     */
    public InFlightLimiter(int maxInFlight, int maxQueued) {
        if (maxInFlight < 1 || maxQueued < 0) {
            throw new IllegalArgumentException("maxInFlight must be >= 1 and maxQueued >= 0, got " + maxInFlight
                    + " and " + maxQueued);
        }
        this.maxInFlight = maxInFlight;
        this.maxQueued = maxQueued;
    }

    /** Requests holding a permit now. */
    public int inFlight() {
        return inFlightGauge.get();
    }

    /** Requests waiting for a permit now. */
    public int queued() {
        return queuedGauge.get();
    }

    /**
     * Whether a request arriving now would be refused. A hint for answering 503 before a response starts;
     * {@link #acquire()} decides.
     */
    public boolean isFull() {
        synchronized (this) {
            return inFlight >= maxInFlight && queue.size() >= maxQueued;
        }
    }

    /**
     * A permit, now or once one is released; an {@link ApiException} ({@link ApiError#OVERLOADED}) when the
     * queue is full. Cancelling the subscription while waiting leaves the queue. Lazy: nothing happens until
     * subscription.
     */
    public Mono<Permit> acquire() {
        return Mono.create(this::enqueue);
    }

    private void enqueue(MonoSink<Permit> sink) {
        Waiter waiter = new Waiter(sink);
        boolean granted = false;
        synchronized (this) {
            if (idle != null) {
                sink.error(new ApiException(ApiError.OVERLOADED, "the gateway is shutting down; retry on another one",
                        null, "shutting_down"));
                return;
            } else if (inFlight < maxInFlight) {
                inFlight++;
                granted = true;
            } else if (queue.size() < maxQueued) {
                queue.addLast(waiter);
            } else {
                sink.error(new ApiException(ApiError.OVERLOADED, "the gateway is at its in-flight limit and its queue is "
                        + "full; retry later", null, "overloaded"));
                return;
            }
            inFlightGauge.set(inFlight);
            queuedGauge.set(queue.size());
        }
        sink.onCancel(waiter::cancel);
        if (granted) {
            Permit permit = new Permit();
            if (!waiter.grant(permit)) {
                permit.release();
            }
        }
    }

    /** Called once per permit: hands it to the first waiter still waiting, or frees it. */
    private void release() {
        while (true) {
            Waiter next;
            synchronized (this) {
                next = queue.pollFirst();
                if (next == null) {
                    inFlight--;
                }
                inFlightGauge.set(inFlight);
                queuedGauge.set(queue.size());
                completeIfIdle();
            }
            if (next == null || next.grant(new Permit())) {
                return;
            }
        }
    }

    /**
     * Refuses every request from now on ({@link ApiError#OVERLOADED}, 503, so a load balancer retries elsewhere) and
     * completes once no request runs or waits: how a gateway drains on shutdown. Idempotent.
     */
    public CompletableFuture<Void> drain() {
        synchronized (this) {
            if (idle == null) {
                idle = new CompletableFuture<>();
                completeIfIdle();
            }
            return idle.copy();
        }
    }

    /** Whether {@link #drain()} was called. */
    public synchronized boolean draining() {
        return idle != null;
    }

    private void completeIfIdle() { // under the lock
        if (idle != null && inFlight == 0 && queue.isEmpty()) {
            idle.complete(null);
        }
    }

    /** The right to run one request; release it exactly once when the request ends (idempotent). */
    public final class Permit {
        private final AtomicBoolean released = new AtomicBoolean();

        private Permit() {
        }

        /** Gives the permit back; later calls do nothing. */
        public void release() {
            if (released.compareAndSet(false, true)) {
                InFlightLimiter.this.release();
            }
        }
    }

    /** A queued request: granted or cancelled, whichever happens first. */
    private final class Waiter {
        private static final int WAITING = 0;
        private static final int GRANTED = 1;
        private static final int CANCELLED = 2;
        private final MonoSink<Permit> sink;
        private final AtomicInteger state = new AtomicInteger(WAITING);
        private volatile Permit permit;

        Waiter(MonoSink<Permit> sink) {
            this.sink = sink;
        }

        /** Hands over {@code granted}; false if the waiter was already cancelled. */
        boolean grant(Permit granted) {
            permit = granted;
            if (!state.compareAndSet(WAITING, GRANTED)) {
                return false;
            }
            sink.success(granted);
            return true;
        }

        void cancel() {
            if (state.compareAndSet(WAITING, CANCELLED)) {
                boolean removed;
                synchronized (InFlightLimiter.this) {
                    removed = queue.remove(this);
                    queuedGauge.set(queue.size());
                    completeIfIdle();
                }
                if (!removed) {
                    // Polled by release() but not yet granted: grant() fails and release() moves on.
                    return;
                }
            } else {
                Permit held = permit;
                if (held != null) {
                    held.release();
                }
            }
        }
    }
}

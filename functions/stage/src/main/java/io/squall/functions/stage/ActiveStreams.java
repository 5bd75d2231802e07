package io.squall.functions.stage;

import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The streams a stage has open, so that a shutdown can drain them: {@link #drain(Duration)} refuses new streams,
 * lets the open ones finish within a grace period, and then ends those still open with an error; the caller turns
 * that error into a retry elsewhere (a worker's streams end {@code UNAVAILABLE}, which the gateway migrates).
 *
 * <p>A stream counts as finished when it completes or emits its last element ({@code isLast}): a stream cut after
 * its last element completes normally, so a caller never sees an error after a complete answer. Adds no demand and
 * no buffering: {@link #track} only relays signals. Thread-safe.
 */
public final class ActiveStreams {

    private final Supplier<? extends Throwable> refused;
    private final Supplier<? extends Throwable> cut;
    private final AtomicInteger open = new AtomicInteger();
    private final Sinks.Empty<Void> deadline = Sinks.empty();
    private final CompletableFuture<Void> idle = new CompletableFuture<>();
    private volatile boolean draining;
    private volatile Disposable timer;

    /**
     * @param refused the error of a stream asked for while draining
     * @param cut the error that ends a stream still open when the grace period is over
     */
    public ActiveStreams(Supplier<? extends Throwable> refused, Supplier<? extends Throwable> cut) {
        this.refused = Objects.requireNonNull(refused, "refused");
        this.cut = Objects.requireNonNull(cut, "cut");
    }

    /**
     * {@code source} counted among the open streams from subscription to its end or cancellation; refused while
     * draining; cut when the grace period is over.
     *
     * @param isLast whether an element is the stream's last (e.g. a chunk carrying the finish reason)
     */
    public <T> Flux<T> track(Flux<T> source, Predicate<? super T> isLast) {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(isLast, "isLast");
        return Flux.defer(() -> {
            open.incrementAndGet();
            if (draining) { // checked after counting, so drain() never reports idle while this stream starts
                closed();
                return Flux.error(refused.get());
            }
            boolean[] finished = {false}; // written and read in the stream's serialised signals
            return source
                    .doOnNext(element -> finished[0] |= isLast.test(element))
                    .doOnComplete(() -> finished[0] = true)
                    .takeUntilOther(deadline.asMono())
                    .concatWith(Mono.defer(() -> finished[0] ? Mono.empty() : Mono.error(cut.get())))
                    .doFinally(signal -> closed());
        });
    }

    private void closed() {
        if (open.decrementAndGet() == 0 && draining) {
            idle.complete(null);
        }
    }

    /** The number of streams open now. */
    public int open() {
        return open.get();
    }

    /** Whether {@link #drain} was called. */
    public boolean draining() {
        return draining;
    }

    /**
     * Refuses new streams from now on and completes once every open stream has ended: by itself within
     * {@code grace}, or cut when {@code grace} is over. Idempotent: a second call returns the same completion.
     */
    public synchronized CompletableFuture<Void> drain(Duration grace) {
        Objects.requireNonNull(grace, "grace");
        if (!draining) {
            draining = true;
            timer = Mono.delay(grace.isNegative() ? Duration.ZERO : grace).subscribe(tick -> cutAll());
            idle.whenComplete((ignored, error) -> timer.dispose());
            if (open.get() == 0) {
                idle.complete(null);
            }
        }
        return idle.copy();
    }

    /** Ends every open stream (and any opened later) with the cut error now. */
    public void cutAll() {
        deadline.tryEmitEmpty();
    }
}

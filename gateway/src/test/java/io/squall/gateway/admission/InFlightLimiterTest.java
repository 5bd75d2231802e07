package io.squall.gateway.admission;

import io.squall.gateway.openai.ApiError;
import io.squall.gateway.openai.ApiException;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

class InFlightLimiterTest {

    @Test
    void grantsUpToTheLimitQueuesThenRefuses() {
        InFlightLimiter limiter = new InFlightLimiter(1, 1);
        InFlightLimiter.Permit first = limiter.acquire().block();
        AtomicReference<InFlightLimiter.Permit> second = new AtomicReference<>();
        limiter.acquire().subscribe(second::set);
        assertThat(second).hasNullValue();
        assertThat(limiter.queued()).isEqualTo(1);
        assertThat(limiter.isFull()).isTrue();
        AtomicReference<Throwable> third = new AtomicReference<>();
        limiter.acquire().subscribe(p -> { }, third::set);
        assertThat(third.get()).isInstanceOfSatisfying(ApiException.class,
                e -> assertThat(e.error()).isEqualTo(ApiError.OVERLOADED));
        first.release();
        first.release();
        assertThat(second).doesNotHaveNullValue();
        assertThat(limiter.inFlight()).isEqualTo(1);
        second.get().release();
        assertThat(limiter.inFlight()).isZero();
    }

    @Test
    void aCancelledWaiterLeavesTheQueue() {
        InFlightLimiter limiter = new InFlightLimiter(1, 4);
        InFlightLimiter.Permit held = limiter.acquire().block();
        Disposable waiting = limiter.acquire().subscribe();
        assertThat(limiter.queued()).isEqualTo(1);
        waiting.dispose();
        assertThat(limiter.queued()).isZero();
        held.release();
        assertThat(limiter.inFlight()).isZero();
    }

    @Test
    void permitsNeverLeakUnderConcurrentAcquireCancelAndRelease() throws Exception {
        InFlightLimiter limiter = new InFlightLimiter(3, 8);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        CountDownLatch done = new CountDownLatch(4);
        for (int t = 0; t < 4; t++) {
            pool.execute(() -> {
                List<Disposable> subscriptions = new ArrayList<>();
                for (int i = 0; i < 5_000; i++) {
                    subscriptions.add(limiter.acquire().flatMap(p -> Mono.fromRunnable(p::release)).subscribe(x -> { }, e -> { }));
                    if (i % 3 == 0) {
                        subscriptions.get(subscriptions.size() - 1).dispose();
                    }
                }
                done.countDown();
            });
        }
        assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
        pool.shutdown();
        assertThat(limiter.inFlight()).isZero();
        assertThat(limiter.queued()).isZero();
    }

    @Test
    void aDrainRefusesNewRequestsAndCompletesWhenTheLastOneEnds() {
        InFlightLimiter limiter = new InFlightLimiter(1, 1);
        InFlightLimiter.Permit running = limiter.acquire().block();
        AtomicReference<InFlightLimiter.Permit> waiting = new AtomicReference<>();
        limiter.acquire().subscribe(waiting::set);

        java.util.concurrent.CompletableFuture<Void> drained = limiter.drain();
        assertThat(limiter.draining()).isTrue();
        AtomicReference<Throwable> refused = new AtomicReference<>();
        limiter.acquire().subscribe(p -> { }, refused::set);
        assertThat(refused.get()).isInstanceOfSatisfying(ApiException.class,
                e -> assertThat(e.error()).isEqualTo(ApiError.OVERLOADED));

        running.release();
        assertThat(waiting).as("a request queued before the drain still runs").doesNotHaveNullValue();
        assertThat(drained).isNotDone();
        waiting.get().release();
        assertThat(drained).isCompleted();
        assertThat(limiter.drain()).isCompleted();
    }
}

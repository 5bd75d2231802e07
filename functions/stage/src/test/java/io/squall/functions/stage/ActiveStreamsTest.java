package io.squall.functions.stage;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

class ActiveStreamsTest {

    private final ActiveStreams streams = new ActiveStreams(
            () -> new IllegalStateException("refused"), () -> new IllegalStateException("cut"));

    @Test
    void aStreamThatFinishesWithinTheGracePeriodEndsNormally() {
        Sinks.Many<Integer> source = Sinks.many().unicast().onBackpressureBuffer();
        Flux<Integer> tracked = streams.track(source.asFlux(), i -> i < 0);
        StepVerifier.create(tracked)
                .then(() -> source.tryEmitNext(1))
                .expectNext(1)
                .then(() -> assertThat(streams.open()).isEqualTo(1))
                .then(() -> {
                    CompletableFuture<Void> drained = streams.drain(Duration.ofMinutes(5));
                    assertThat(drained).isNotDone();
                    source.tryEmitNext(-1);
                    source.tryEmitComplete();
                })
                .expectNext(-1)
                .verifyComplete();
        assertThat(streams.drain(Duration.ofMinutes(5))).isCompleted();
    }

    @Test
    void aStreamStillOpenAtTheDeadlineIsCutWithTheCutError() {
        Sinks.Many<Integer> source = Sinks.many().unicast().onBackpressureBuffer();
        StepVerifier.create(streams.track(source.asFlux(), i -> i < 0))
                .then(() -> source.tryEmitNext(1))
                .expectNext(1)
                .then(() -> streams.drain(Duration.ZERO))
                .expectErrorMessage("cut")
                .verify(Duration.ofSeconds(10));
        assertThat(streams.open()).isZero();
        assertThat(streams.drain(Duration.ZERO)).isCompleted();
    }

    @Test
    void aStreamCutAfterItsLastElementCompletesNormally() {
        Sinks.Many<Integer> source = Sinks.many().unicast().onBackpressureBuffer();
        StepVerifier.create(streams.track(source.asFlux(), i -> i < 0))
                .then(() -> source.tryEmitNext(-1))
                .expectNext(-1)
                .then(streams::cutAll)
                .verifyComplete();
    }

    @Test
    void newStreamsAreRefusedWhileDraining() {
        assertThat(streams.drain(Duration.ofMinutes(5))).isCompleted();
        StepVerifier.create(streams.track(Flux.just(1), i -> false)).expectErrorMessage("refused").verify();
        assertThat(streams.open()).isZero();
    }
}

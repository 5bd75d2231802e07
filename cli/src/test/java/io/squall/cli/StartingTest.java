package io.squall.cli;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A part of a stage's start run beside the caller: its result, its failure, and closing it when the caller fails. */
class StartingTest {

    @Test
    void thePartRunsOnItsOwnThreadAndGetWaitsForIt() {
        AtomicReference<String> thread = new AtomicReference<>();
        Part made = new Part();
        Starting<Part> starting = Starting.start("squall-test-part", () -> {
            thread.set(Thread.currentThread().getName());
            return made;
        });
        assertThat(starting.get()).isSameAs(made);
        assertThat(thread.get()).isEqualTo("squall-test-part");
        assertThat(made.closed.getCount()).as("a part taken is the caller's to close").isEqualTo(1);
    }

    @Test
    void aFailedPartsExceptionReachesTheCallerAsItWas() {
        IllegalStateException failure = new IllegalStateException("port 5701 is taken");
        Starting<Part> starting = Starting.start("squall-test-part", () -> {
            throw failure;
        });
        assertThatThrownBy(starting::get).isSameAs(failure);
    }

    @Test
    void anAbandonedPartIsClosedOnceItIsReady() throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        Part made = new Part();
        Starting<Part> starting = Starting.start("squall-test-part", () -> {
            awaitUninterruptibly(release);
            return made;
        });
        starting.abandon(); // the caller failed while the part was still starting
        assertThat(made.closed.getCount()).isEqualTo(1);
        release.countDown();
        assertThat(made.closed.await(30, TimeUnit.SECONDS)).isTrue();
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static final class Part implements AutoCloseable {
        final CountDownLatch closed = new CountDownLatch(1);

        @Override
        public void close() {
            closed.countDown();
        }
    }
}

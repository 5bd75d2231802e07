package io.squall.cli.bench;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class TraceReplayTest {

    /** A server that holds every request until released, counting how many reached it. */
    private static final class HeldTarget implements Target {
        final CountDownLatch release = new CountDownLatch(1);
        final CountDownLatch allArrived;
        final AtomicInteger arrived = new AtomicInteger();

        HeldTarget(int expected) {
            this.allArrived = new CountDownLatch(expected);
        }

        @Override
        public Outcome send(BenchRequest request) {
            arrived.incrementAndGet();
            allArrived.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new Outcome(1_000, new long[0], 2_000, request.maxTokens(), "", null,
                    new Outcome.Served(request.prompt().length, 0, "w", 0, 0));
        }

        @Override
        public int promptTokens(BenchRequest probe) {
            return 0;
        }

        @Override
        public int[] tokenize(List<Map<String, String>> messages) {
            return new int[0];
        }

        @Override
        public int[] tokenizeText(String text) {
            return new int[0];
        }
    }


    @Test
    void sendsOpenLoopWithoutWaitingForEarlierRequestsToFinish() throws Exception {
        HeldTarget target = new HeldTarget(4);
        Thread release = Thread.ofPlatform().start(() -> {
            try {
                if (target.allArrived.await(30, TimeUnit.SECONDS)) {
                    target.release.countDown();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Report.Run run = new TraceReplay(target, 1, 4).run(TraceReplay.Schedule.of(0, 0, 10, 20), i -> BenchRequest.tokens(new int[] {i + 1, 2, 3}, 2));
        release.join();
        // every request reached the server while none had been answered: arrivals do not wait for completions
        assertThat(target.arrived.get()).isEqualTo(4);
        assertThat(run.results()).hasSize(4).allMatch(r -> r.outcome().ok());
    }

    @Test
    void noRequestIsSentBeforeItsTimeDividedByTheScale() throws Exception {
        HeldTarget target = new HeldTarget(3);
        target.release.countDown();
        long[] millis = {0, 40, 80};
        Report.Run run = new TraceReplay(target, 4, 4).run(TraceReplay.Schedule.of(millis), i -> BenchRequest.tokens(new int[] {i, 1}, 1));
        for (int i = 0; i < 3; i++) {
            assertThat(run.results().get(i).sentNanos()).isGreaterThanOrEqualTo(millis[i] * 1_000_000 / 4);
            assertThat(run.results().get(i).lagNanos()).isNotNegative();
        }
    }

    @Test
    void theOracleSeesEachPromptAsItIsSent() throws Exception {
        HeldTarget target = new HeldTarget(2);
        target.release.countDown();
        int[] prompt = java.util.stream.IntStream.range(0, 9).toArray();
        Report.Run run = new TraceReplay(target, 1, 4).run(TraceReplay.Schedule.of(0, 1), i -> BenchRequest.tokens(prompt, 1));
        assertThat(run.results()).extracting(Report.Result::ceilingTokens).containsExactly(0, 8);
    }
}

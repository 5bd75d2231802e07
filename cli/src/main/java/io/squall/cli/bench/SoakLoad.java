package io.squall.cli.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * The soak's load: {@code concurrency} simulated users, each a platform thread that sends one streaming chat
 * request after another until told to stop, with a prompt length and an output length drawn per request from the
 * given mixes. Every failed request is handed at once to an error listener. Counters are thread-safe.
 */
final class SoakLoad {

    /** What one user draws its requests from. */
    record Mix(List<Integer> inputTokens, List<Integer> outputTokens, double tokensPerWord, long seed) {

        Mix {
            inputTokens = List.copyOf(inputTokens);
            outputTokens = List.copyOf(outputTokens);
            if (inputTokens.isEmpty() || outputTokens.isEmpty() || inputTokens.stream().anyMatch(n -> n < 1)
                    || outputTokens.stream().anyMatch(n -> n < 1)) {
                throw new IllegalArgumentException("the prompt and output lengths must be positive, at least one each");
            }
        }
    }

    private final Target target;
    private final Mix mix;
    private final Consumer<String> errors;
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final LongAdder completed = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder outputTokens = new LongAdder();
    private final List<Thread> users = new ArrayList<>();

    /** @param errors told of each failed request (its error), from the user's thread */
    SoakLoad(Target target, Mix mix, Consumer<String> errors) {
        this.target = target;
        this.mix = mix;
        this.errors = errors;
    }

    /** Starts {@code concurrency} users. */
    void start(int concurrency) {
        for (int i = 0; i < concurrency; i++) {
            Random random = new Random(mix.seed() * 31 + i);
            users.add(Thread.ofPlatform().name("soak-user-" + i).start(() -> run(random)));
        }
    }

    private void run(Random random) {
        while (!stopping.get()) {
            int input = mix.inputTokens().get(random.nextInt(mix.inputTokens().size()));
            int output = mix.outputTokens().get(random.nextInt(mix.outputTokens().size()));
            String prompt = Workload.words(random, Math.max(1, (int) Math.round(input / mix.tokensPerWord())));
            Outcome outcome = target.send(new BenchRequest(List.of(Map.of("role", "user", "content", prompt)), output));
            if (outcome.ok()) {
                completed.increment();
                outputTokens.add(outcome.outputTokens());
            } else {
                failed.increment();
                errors.accept(outcome.error());
            }
        }
    }

    /** Lets every user finish its request in flight, then returns. */
    void stop() throws InterruptedException {
        stopping.set(true);
        for (Thread user : users) {
            user.join();
        }
    }

    long completed() {
        return completed.sum();
    }

    long failed() {
        return failed.sum();
    }

    long outputTokens() {
        return outputTokens.sum();
    }
}

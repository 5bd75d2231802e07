package io.squall.cli.bench;

import io.squall.functions.api.FinishReason;
import io.squall.functions.engine.batch.Admission;
import io.squall.functions.engine.batch.BatchConfig;
import io.squall.functions.engine.batch.BatchScheduler;
import io.squall.functions.engine.batch.GenerationRequest;
import io.squall.functions.engine.batch.KvPool;
import io.squall.functions.engine.batch.TokenSink;
import io.squall.functions.engine.mock.StepTimingFit;
import io.squall.functions.engine.model.ForwardPass;
import io.squall.functions.engine.sampling.SampledToken;
import io.squall.functions.engine.sampling.SamplingParams;
import io.squall.functions.worker.kv.KvConfig;
import io.squall.functions.worker.kv.KvEventSink;
import io.squall.kvgrid.WorkerId;
import io.squall.kvgrid.metrics.KvStats;
import io.squall.scheduler.profile.Profile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Measures what one worker does against load, through the continuous-batching scheduler it serves with: time to
 * first token of a prompt alone against its length, and the inter-token latency of {@code batch} sequences
 * decoding at {@code context} tokens, the tables a {@link Profile} holds; and every step's shape and cost, to
 * which a step-timing model is fitted. Decode sequences of one context share their prompt but its last token, so
 * the prompt is computed once and each sequence still attends over the whole context.
 */
public final class WorkerProfiler {

    private static final Logger LOG = LoggerFactory.getLogger(WorkerProfiler.class);
    private static final long TIMEOUT_MINUTES = 30;
    /** Warm-up rounds at most: each runs every shape of the plan once. */
    private static final int MAX_WARM_UP_ROUNDS = 8;
    /** The JIT has settled once a warm-up round spent less than this share of its time compiling. */
    private static final double SETTLED_COMPILE_SHARE = 0.05;
    /** The prompts of the warm-up's decode batches, and what each generates. */
    private static final int WARM_UP_PROMPT = 16;
    private static final int WARM_UP_TOKENS = 4;

    /**
     * What to measure.
     *
     * @param isls prompt lengths of the prefill table
     * @param batches running sequences of the decode table
     * @param contexts context lengths of the decode table
     * @param decodeTokens tokens each decode sequence generates
     * @param repeats prompts measured per length (the median is kept)
     */
    public record Plan(List<Integer> isls, List<Integer> batches, List<Integer> contexts, int decodeTokens, int repeats) {
        public Plan {
            isls = List.copyOf(isls);
            batches = List.copyOf(batches);
            contexts = List.copyOf(contexts);
            if (isls.isEmpty() || batches.isEmpty() || contexts.isEmpty() || decodeTokens < 4 || repeats < 1) {
                throw new IllegalArgumentException("a profile plan needs prompt lengths, batches, contexts, at least 4 "
                        + "decode tokens and one repeat");
            }
        }
    }

    /**
     * What was measured: the two tables, the samples of every step run after warm-up, and the warm-up rounds it
     * took for the JIT to settle.
     */
    public record Measurements(List<Profile.PrefillPoint> prefill, List<Profile.DecodePoint> decode,
                               List<StepTimingFit.Sample> samples, int warmUpRounds) {
    }

    private final RecordingForwardPass pass;
    private final BatchConfig batch;
    private final KvConfig kv;
    private final double timeScale;
    private final SplittableRandom random = new SplittableRandom(20261123);
    private final AtomicLong ids = new AtomicLong();

    /**
     * @param kv        the worker's G1 pool (no lower tiers: a profile measures compute)
     * @param timeScale simulated seconds per wall-clock second: a mock engine's speedup (its measured times are
     *                  scaled back to what they model), 1 for a real engine
     */
    public WorkerProfiler(ForwardPass pass, BatchConfig batch, KvConfig kv, double timeScale) {
        this.pass = new RecordingForwardPass(pass);
        this.batch = batch;
        this.kv = kv;
        this.timeScale = timeScale;
    }

    /** Runs {@code plan}; takes a few minutes on a CPU worker. */
    public Measurements measure(Plan plan) throws InterruptedException {
        try (KvPool pool = kv.open(pass.kvLayout(kv.blockSize()), new WorkerId(1), KvEventSink.DISCARD, KvStats.NONE);
             BatchScheduler scheduler = new BatchScheduler(pass, batch, token -> false, pool)) {
            int warmUpRounds = warmUp(scheduler, plan);
            List<StepTimingFit.Sample> samples = new ArrayList<>();
            List<Profile.PrefillPoint> prefill = new ArrayList<>();
            for (int isl : plan.isls()) {
                if (!fits(isl)) {
                    LOG.warn("skipping prompt length {}: beyond the context or the KV pool", isl);
                    continue;
                }
                double[] ttft = new double[plan.repeats()];
                for (int r = 0; r < ttft.length; r++) {
                    pass.clear();
                    ttft[r] = run(scheduler, List.of(prompt(isl)), 1).get(0).ttftMs() * timeScale;
                    samples.addAll(RecordingForwardPass.samples(pass.steps(), timeScale));
                }
                prefill.add(new Profile.PrefillPoint(isl, median(ttft)));
                LOG.info("prefill {} tokens: {} ms", isl, median(ttft));
            }
            List<Profile.DecodePoint> decode = new ArrayList<>();
            for (int context : plan.contexts()) {
                decode(scheduler, plan, context, decode, samples);
            }
            return new Measurements(prefill, decode, samples, warmUpRounds);
        }
    }

    private void decode(BatchScheduler scheduler, Plan plan, int context, List<Profile.DecodePoint> decode,
                        List<StepTimingFit.Sample> samples) throws InterruptedException {
        int[] shared = prompt(context - 1);
        if (context + plan.decodeTokens() >= pass.maxPositions()) {
            LOG.warn("skipping context {}: beyond the context", context);
            return;
        }
        run(scheduler, List.of(extend(shared)), 1); // computes the shared prompt once; the batches reuse it
        for (int sequences : plan.batches()) {
            int perSequence = blocks(context + plan.decodeTokens()) - (context - 1) / kv.blockSize();
            if (sequences > batch.maxRunningSequences()
                    || (context - 1) / kv.blockSize() + (long) sequences * perSequence > kv.blocks()) {
                LOG.warn("skipping {} sequences at context {}: beyond the batch or the KV pool",
                        sequences, context);
                continue;
            }
            List<int[]> prompts = new ArrayList<>();
            for (int s = 0; s < sequences; s++) {
                prompts.add(extend(shared));
            }
            pass.clear();
            run(scheduler, prompts, plan.decodeTokens());
            List<RecordingForwardPass.Step> steps = pass.steps();
            List<StepTimingFit.Sample> stepSamples = RecordingForwardPass.samples(steps, timeScale);
            samples.addAll(stepSamples);
            double[] itl = stepSamples.stream()
                    .filter(s -> s.shape().decodeRows() == sequences && s.shape().rows() == sequences)
                    .mapToDouble(s -> s.seconds() * 1e3).toArray();
            long meanContext = Math.round(stepSamples.stream()
                    .filter(s -> s.shape().decodeRows() == sequences && s.shape().rows() == sequences)
                    .mapToDouble(s -> s.shape().decodeContext() / (double) sequences).average().orElse(context));
            if (itl.length == 0) {
                LOG.warn("no pure decode step of {} sequences at context {}", sequences, context);
                continue;
            }
            decode.add(new Profile.DecodePoint(sequences, (int) meanContext, median(itl)));
            LOG.info("decode {} sequences at context {}: {} ms a step", sequences, meanContext,
                    median(itl));
        }
    }

    /**
     * Runs every prompt length and decode batch of {@code plan}, unrecorded, in rounds until the JIT has settled: a
     * round that spent under {@link #SETTLED_COMPILE_SHARE} of its time compiling, or {@link #MAX_WARM_UP_ROUNDS}.
     * Each shape must run before it is measured: a fixed warm-up of other shapes left C2 compiling the kernels of the
     * shortest prompt while it was measured, at 13 to 18 times its warm time. Returns the rounds run.
     */
    private int warmUp(BatchScheduler scheduler, Plan plan) throws InterruptedException {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        // a JVM without a JIT, or one that does not time it, is taken as settled after one round
        boolean timed = jit != null && jit.isCompilationTimeMonitoringSupported();
        for (int round = 1; ; round++) {
            long compiledMs = timed ? jit.getTotalCompilationTime() : 0;
            long start = System.nanoTime();
            for (int isl : plan.isls()) {
                if (fits(isl)) {
                    run(scheduler, List.of(prompt(isl)), 1);
                }
            }
            for (int sequences : plan.batches()) {
                if (sequences <= batch.maxRunningSequences()
                        && (long) sequences * blocks(WARM_UP_PROMPT + WARM_UP_TOKENS) <= kv.blocks()) {
                    List<int[]> prompts = new ArrayList<>();
                    for (int s = 0; s < sequences; s++) {
                        prompts.add(prompt(WARM_UP_PROMPT));
                    }
                    run(scheduler, prompts, WARM_UP_TOKENS);
                }
            }
            double roundMs = (System.nanoTime() - start) / 1e6;
            double compilingMs = timed ? jit.getTotalCompilationTime() - compiledMs : 0;
            LOG.info("warm-up round {}: {} ms, {} ms of it compiling", round, Math.round(roundMs), Math.round(compilingMs));
            if (compilingMs < SETTLED_COMPILE_SHARE * roundMs || round == MAX_WARM_UP_ROUNDS) {
                pass.clear();
                return round;
            }
        }
    }

    private boolean fits(int isl) {
        return isl < pass.maxPositions() && blocks(isl + 1) <= kv.blocks();
    }

    /** One finished sequence's timing. */
    private record Timing(double ttftMs) {
    }

    /** Submits {@code prompts} at once, each for {@code maxTokens} tokens, and waits for all of them. */
    private List<Timing> run(BatchScheduler scheduler, List<int[]> prompts, int maxTokens) throws InterruptedException {
        List<CompletableFuture<Timing>> done = new ArrayList<>();
        for (int[] prompt : prompts) {
            CompletableFuture<Timing> finished = new CompletableFuture<>();
            long submitted = System.nanoTime();
            AtomicLong first = new AtomicLong();
            TokenSink sink = new TokenSink() {
                @Override
                public void onToken(int token, SampledToken detail) {
                    first.compareAndSet(0, System.nanoTime());
                }

                @Override
                public void onFinish(FinishReason reason, Usage usage) {
                    finished.complete(new Timing((first.get() - submitted) / 1e6));
                }

                @Override
                public void onError(Throwable error) {
                    finished.completeExceptionally(error);
                }
            };
            GenerationRequest request = new GenerationRequest("profile-" + ids.incrementAndGet(), prompt,
                    SamplingParams.greedy(), maxTokens, true, -1);
            // demand from the start, so a prompt is computed in one step whenever the scheduler picks it up
            if (scheduler.submit(request, sink, maxTokens) instanceof Admission.Rejected rejected) {
                throw new IllegalStateException("the profiler's request was refused: " + rejected.reason());
            }
            done.add(finished);
        }
        List<Timing> timings = new ArrayList<>();
        for (CompletableFuture<Timing> future : done) {
            try {
                timings.add(future.get(TIMEOUT_MINUTES, TimeUnit.MINUTES));
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                throw new IllegalStateException("a profiling request failed: " + e.getMessage(), e);
            }
        }
        return timings;
    }

    private int[] prompt(int length) {
        int low = Math.min(256, pass.vocabSize() / 2); // clear of the special tokens at the start of most vocabularies
        int[] tokens = new int[length];
        for (int i = 0; i < length; i++) {
            tokens[i] = random.nextInt(low, pass.vocabSize());
        }
        return tokens;
    }

    private int[] extend(int[] prefix) {
        int[] tokens = Arrays.copyOf(prefix, prefix.length + 1);
        tokens[prefix.length] = prompt(1)[0];
        return tokens;
    }

    private int blocks(int tokens) {
        return (tokens + kv.blockSize() - 1) / kv.blockSize();
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}

package io.squall.functions.worker.local;

import io.squall.functions.api.ErrorCode;
import io.squall.functions.api.FinishReason;
import io.squall.functions.api.GenerateRequest;
import io.squall.functions.api.GenerateService;
import io.squall.functions.api.StageException;
import io.squall.functions.api.TokenChunk;
import io.squall.functions.engine.batch.Admission;
import io.squall.functions.engine.batch.BatchScheduler;
import io.squall.functions.engine.batch.Generation;
import io.squall.functions.engine.batch.GenerationRequest;
import io.squall.functions.engine.batch.RemotePrefill;
import io.squall.functions.engine.batch.TokenSink;
import io.squall.functions.engine.sampling.SampledToken;
import io.squall.functions.engine.sampling.TokenLogprob;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;

import java.util.List;
import java.util.Objects;
import java.util.function.LongConsumer;

/**
 * Serves {@link GenerateService} from a {@link BatchScheduler}: one chunk per generated token, then a
 * final chunk with the finish reason and usage.
 *
 * <p>Demand: the request reaches the scheduler with the subscriber's first {@code request(n)}, and each later
 * one is passed on; the scheduler computes a token only when there is demand for it. The final chunk may come
 * without demand, so the sink's buffer holds at most that one element. Cancellation cancels the sequence,
 * freeing its blocks at the next step.
 */
public final class SchedulerGenerateService implements GenerateService {

    private final BatchScheduler scheduler;
    private final RemotePrefill remote;

    /** Prefills every prompt locally. */
    public SchedulerGenerateService(BatchScheduler scheduler) {
        this(scheduler, RemotePrefill.NONE);
    }

    /** @param remote where prompts may be prefilled instead (a decode worker's prefill workers) */
    public SchedulerGenerateService(BatchScheduler scheduler, RemotePrefill remote) {
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.remote = Objects.requireNonNull(remote, "remote");
    }

    @Override
    public Flux<TokenChunk> generate(GenerateRequest request) {
        return Flux.create(sink -> {
            GenerationRequest engineRequest;
            try {
                engineRequest = new GenerationRequest(request.requestId(), request.tokens(), SamplingMapping.params(request.sampling()),
                        request.maxTokens(), request.ignoreEos(), request.topLogprobs());
            } catch (IllegalArgumentException | NullPointerException e) {
                sink.error(new StageException(ErrorCode.INVALID_REQUEST, e.getMessage()));
                return;
            }
            Submission submission = new Submission(engineRequest, sink);
            sink.onCancel(submission::cancel);
            sink.onRequest(submission);
        }, FluxSink.OverflowStrategy.BUFFER);
    }

    /**
     * Submits the request on the subscriber's first demand, with that demand, and passes later demand on. Submitted
     * before its demand, a prompt could have its last token (the one that yields the first output token) left to a
     * later step whenever the scheduler planned a step first. Demand comes serially, but the first may still be
     * running here when the next arrives.
     */
    private final class Submission implements LongConsumer {
        private final GenerationRequest request;
        private final FluxSink<TokenChunk> sink;
        private Generation generation;
        private boolean ended;

        Submission(GenerationRequest request, FluxSink<TokenChunk> sink) {
            this.request = request;
            this.sink = sink;
        }

        @Override
        public synchronized void accept(long demand) {
            if (generation != null) {
                generation.request(demand);
                return;
            }
            if (ended) {
                return;
            }
            switch (scheduler.submit(request, new ChunkSink(sink), remote, demand)) {
                case Admission.Rejected rejected -> {
                    ended = true;
                    sink.error(new StageException(rejected.overloaded() ? ErrorCode.OVERLOADED
                            : ErrorCode.INVALID_REQUEST, rejected.reason()));
                }
                case Admission.Queued queued -> generation = queued.generation();
            }
        }

        synchronized void cancel() {
            ended = true;
            if (generation != null) {
                generation.cancel();
            }
        }
    }

    /** Turns scheduler callbacks into chunks on the flux. */
    private static final class ChunkSink implements TokenSink {
        private final FluxSink<TokenChunk> sink;

        ChunkSink(FluxSink<TokenChunk> sink) {
            this.sink = sink;
        }

        @Override
        public void onToken(int token, SampledToken detail) {
            List<TokenChunk.TokenLogprobs> logprobs = detail == null ? List.of() : List.of(logprobs(detail));
            sink.next(new TokenChunk(new int[] {token}, logprobs, null, null));
        }

        @Override
        public void onFinish(FinishReason reason, Usage usage) {
            sink.next(new TokenChunk(new int[0], List.of(), reason,
                    new TokenChunk.Usage(usage.promptTokens(), usage.completionTokens(), usage.cachedTokens(),
                            usage.sources())));
            sink.complete();
        }

        @Override
        public void onError(Throwable error) {
            sink.error(error instanceof StageException ? error : new StageException(ErrorCode.INTERNAL,
                    "generation failed: " + error.getMessage()));
        }

        private static TokenChunk.TokenLogprobs logprobs(SampledToken detail) {
            List<TokenLogprob> top = detail.topLogprobs();
            int[] ids = new int[top.size()];
            float[] values = new float[top.size()];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = top.get(i).tokenId();
                values[i] = top.get(i).logprob();
            }
            return new TokenChunk.TokenLogprobs(detail.tokenId(), detail.logprob(), ids, values);
        }
    }
}

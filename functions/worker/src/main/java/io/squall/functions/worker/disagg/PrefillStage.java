package io.squall.functions.worker.disagg;

import io.squall.functions.api.ErrorCode;
import io.squall.functions.api.FinishReason;
import io.squall.functions.api.KvBlockFrame;
import io.squall.functions.api.KvPushHeader;
import io.squall.functions.api.KvPushService;
import io.squall.functions.api.PrefillRequest;
import io.squall.functions.api.PrefillResult;
import io.squall.functions.api.PrefillService;
import io.squall.functions.api.StageException;
import io.squall.functions.api.codec.WireFormat;
import io.squall.functions.discovery.InstanceId;
import io.squall.functions.engine.batch.Admission;
import io.squall.functions.engine.batch.BatchScheduler;
import io.squall.functions.engine.batch.Generation;
import io.squall.functions.engine.batch.GenerationRequest;
import io.squall.functions.engine.batch.TokenSink;
import io.squall.functions.engine.sampling.SampledToken;
import io.squall.functions.worker.kv.KvPeers;
import io.squall.functions.worker.local.SamplingMapping;
import io.squall.functions.worker.metrics.WorkerMetrics;
import io.squall.kvgrid.BlockHash;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.publisher.SignalType;
import reactor.core.scheduler.Schedulers;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;

/**
 * A prefill worker's {@code prefill} route: the prompt runs in this worker's own batch scheduler as a
 * one-token generation (so several prefills batch together, with chunked prefill and prefix reuse), and
 * each requested full block is pushed to the decode worker over {@code kv.push} as soon as the step that
 * completed it ends, while later chunks are still computing. The answer (the first token, sampled with
 * the request's settings, and the block count) comes once the decode worker acknowledged every block.
 *
 * <p>Buffering: blocks wait in a per-request queue between the scheduler thread and the push, bounded by
 * the request's block count. Cancelling the call (or a failed push) cancels the sequence, freeing its
 * pages. Thread-safe.
 */
public final class PrefillStage implements PrefillService {

    private final BatchScheduler scheduler;
    private final int blockSize;
    private final KvPeers peers;
    private final WorkerMetrics metrics;

    /** @param blockSize tokens per KV block of this worker's pool, which must be the decode workers' too */
    public PrefillStage(BatchScheduler scheduler, int blockSize, KvPeers peers, WorkerMetrics metrics) {
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.peers = Objects.requireNonNull(peers, "peers");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        if (blockSize <= 0) {
            throw new IllegalArgumentException("blockSize must be positive");
        }
        this.blockSize = blockSize;
    }

    @Override
    public Mono<PrefillResult> prefill(PrefillRequest request) {
        Objects.requireNonNull(request, "request");
        return Mono.defer(() -> {
            int blocks = request.destinationBlockIds().length;
            int fullBlocks = request.tokens().length / blockSize;
            if (blocks == 0 || request.firstBlock() + blocks > fullBlocks) {
                return Mono.error(new StageException(ErrorCode.INVALID_REQUEST, "blocks " + request.firstBlock() + ".."
                        + (request.firstBlock() + blocks - 1) + " are not full blocks of a " + request.tokens().length
                        + "-token prompt (" + blockSize + " tokens per block)"));
            }
            InstanceId target;
            try {
                target = InstanceId.parse(request.targetWorker());
            } catch (IllegalArgumentException e) {
                return Mono.error(new StageException(ErrorCode.INVALID_REQUEST, "bad target worker: " + e.getMessage()));
            }
            return Mono.fromCallable(() -> peers.decodeWorker(target).orElseThrow(() -> new StageException(
                            ErrorCode.NOT_FOUND, "decode worker " + target + " is not reachable")))
                    .subscribeOn(Schedulers.boundedElastic())
                    .flatMap(push -> run(request, blocks, push));
        });
    }

    private Mono<PrefillResult> run(PrefillRequest request, int blocks, KvPushService push) {
        GenerationRequest generation;
        try {
            generation = new GenerationRequest(request.requestId(), request.tokens(),
                    SamplingMapping.params(request.sampling()), 1, true, -1);
        } catch (IllegalArgumentException e) {
            return Mono.error(new StageException(ErrorCode.INVALID_REQUEST, e.getMessage()));
        }
        BlockPusher pusher = new BlockPusher(request.firstBlock(), blocks);
        Generation running;
        // its one token wanted from the start, so the prompt is computed in one step
        switch (scheduler.submit(generation, pusher, 1)) {
            case Admission.Rejected rejected -> {
                return Mono.error(new StageException(rejected.overloaded() ? ErrorCode.OVERLOADED
                        : ErrorCode.INVALID_REQUEST, rejected.reason()));
            }
            case Admission.Queued queued -> running = queued.generation();
        }
        Mono<Void> pushed = push.push(new KvPushHeader(request.reservation(), blocks),
                pusher.frames.asFlux().doOnNext(frame -> metrics.kvBlocksPushed()));
        return Mono.zip(pusher.firstToken.asMono(), pushed.thenReturn(blocks), PrefillResult::new)
                .doFinally(signal -> {
                    if (signal != SignalType.ON_COMPLETE) {
                        running.cancel();
                    }
                });
    }

    /**
     * Receives the prefill sequence's output on the scheduler thread: copies each requested prompt block
     * into a frame (the page is reused once the sequence ends) and hands over the first token.
     */
    private static final class BlockPusher implements TokenSink {
        final Sinks.Many<KvBlockFrame> frames = Sinks.many().unicast().onBackpressureBuffer();
        final Sinks.One<Integer> firstToken = Sinks.one();
        private final int firstBlock;
        private final int blocks;

        BlockPusher(int firstBlock, int blocks) {
            this.firstBlock = firstBlock;
            this.blocks = blocks;
        }

        @Override
        public void onPromptBlock(int index, BlockHash hash, MemorySegment page) {
            if (index < firstBlock || index >= firstBlock + blocks) {
                return;
            }
            byte[] payload = page.toArray(ValueLayout.JAVA_BYTE);
            frames.tryEmitNext(new KvBlockFrame(hash, index, payload, WireFormat.crc32c(payload)));
            if (index == firstBlock + blocks - 1) {
                frames.tryEmitComplete();
            }
        }

        @Override
        public void onToken(int token, SampledToken detail) {
            firstToken.tryEmitValue(token);
        }

        /** Ends whatever is still open: after the first token both are already complete and this does nothing. */
        @Override
        public void onFinish(FinishReason reason, Usage usage) {
            onError(new StageException(ErrorCode.UNAVAILABLE, "the prefill ended (" + reason + ") before its output"));
        }

        @Override
        public void onError(Throwable error) {
            StageException failure = error instanceof StageException stage ? stage
                    : new StageException(ErrorCode.INTERNAL, "prefill failed: " + error.getMessage());
            firstToken.tryEmitError(failure);
            frames.tryEmitError(failure);
        }
    }
}

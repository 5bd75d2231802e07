package io.squall.functions.worker.metrics;

import io.squall.functions.api.GenerateRequest;
import io.squall.functions.api.GenerateService;
import io.squall.functions.api.StageException;
import io.squall.functions.api.TokenChunk;
import reactor.core.publisher.Flux;

import java.util.Objects;

/**
 * Counts requests and errors and times the tokens of a {@link GenerateService}: time to first token
 * from subscription, inter-token latency between consecutive chunks with tokens. The inter-token time
 * includes any wait for the subscriber's demand, as a client experiences it.
 *
 * <p>Demand and buffering are the delegate's: this only observes signals. Thread-safe.
 */
public final class MeteredGenerateService implements GenerateService {

    private final GenerateService delegate;
    private final WorkerMetrics metrics;

    public MeteredGenerateService(GenerateService delegate, WorkerMetrics metrics) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
    }

    @Override
    public Flux<TokenChunk> generate(GenerateRequest request) {
        return Flux.defer(() -> {
            metrics.requestStarted();
            long[] last = {System.nanoTime(), 0};
            return delegate.generate(request)
                    .doOnNext(chunk -> {
                        if (chunk.tokenIds().length == 0) {
                            return;
                        }
                        long now = System.nanoTime();
                        if (last[1]++ == 0) {
                            metrics.firstToken(now - last[0]);
                        } else {
                            metrics.interToken(now - last[0]);
                        }
                        last[0] = now;
                    })
                    .doOnError(e -> metrics.requestFailed(e instanceof StageException s ? s.code().name() : "INTERNAL"));
        });
    }
}

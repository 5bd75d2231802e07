package io.squall.functions.worker.disagg;

import io.squall.functions.api.ErrorCode;
import io.squall.functions.api.PrefillRequest;
import io.squall.functions.api.PrefillResult;
import io.squall.functions.api.StageException;
import io.squall.functions.discovery.Discovery;
import io.squall.functions.discovery.WorkerInstance;
import io.squall.functions.discovery.WorkerRole;
import io.squall.functions.engine.batch.GenerationRequest;
import io.squall.functions.engine.batch.PrefillTarget;
import io.squall.functions.engine.batch.RemotePrefill;
import io.squall.functions.worker.kv.KvPeers;
import io.squall.functions.worker.local.SamplingMapping;
import io.squall.functions.worker.metrics.WorkerMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.util.Comparator;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

/**
 * A decode worker's conditional disaggregation: a prompt with more uncached tokens than
 * {@link DisaggregationConfig#minUncachedTokens()} goes to the least loaded prefill worker of the same
 * model whose queue is short enough (per discovery's load reports); everything else is prefilled here.
 *
 * <p>A remote prefill opens a {@link PushReservations reservation} for the pages the scheduler reserved,
 * calls the prefill worker's {@code prefill} route (connecting on a {@code boundedElastic} thread, never
 * on the scheduler's) and succeeds once both the prefill answered and every block was written through
 * {@code kv.push}. Any failure (corrupt or torn push, prefill error, timeout) completes it with
 * {@code false}, counted by reason, and the scheduler computes the prompt itself. The first token is
 * always sampled here, after the last (partial) block is computed locally, so output is what an
 * aggregated worker would produce; the prefill worker's first token is only logged.
 *
 * <p>Thread-safe; {@link #wanted} and {@link #start} return at once.
 */
public final class RemotePrefillRouter implements RemotePrefill {

    private static final Logger LOG = LoggerFactory.getLogger(RemotePrefillRouter.class);

    private final WorkerInstance self;
    private final Discovery discovery;
    private final KvPeers peers;
    private final PushReservations reservations;
    private final DisaggregationConfig config;
    private final WorkerMetrics metrics;

    /** @param self this decode worker as registered: its id is the push target, its model picks peers */
    public RemotePrefillRouter(WorkerInstance self, Discovery discovery, KvPeers peers, PushReservations reservations,
                               DisaggregationConfig config, WorkerMetrics metrics) {
        this.self = Objects.requireNonNull(self, "self");
        this.discovery = Objects.requireNonNull(discovery, "discovery");
        this.peers = Objects.requireNonNull(peers, "peers");
        this.reservations = Objects.requireNonNull(reservations, "reservations");
        this.config = Objects.requireNonNull(config, "config");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
    }

    @Override
    public boolean wanted(GenerationRequest request, int uncachedTokens) {
        return uncachedTokens > config.minUncachedTokens() && prefillWorker().isPresent();
    }

    /**
     * The prefill worker whose KV blocks mean what this worker's do (same model, block size and salt) with the
     * fewest waiting, then running, sequences, within the queue bound.
     */
    private Optional<WorkerInstance> prefillWorker() {
        return discovery.instances().stream()
                .filter(w -> w.role() == WorkerRole.PREFILL && w.model().sharesKvWith(self.model())
                        && w.load().queuedSequences() <= config.maxPrefillQueue())
                .min(Comparator.comparingInt((WorkerInstance w) -> w.load().queuedSequences())
                        .thenComparingInt(w -> w.load().activeSequences()));
    }

    @Override
    public CompletableFuture<Boolean> start(PrefillTarget target) {
        Optional<WorkerInstance> worker = prefillWorker();
        if (worker.isEmpty()) { // it left discovery since wanted()
            metrics.remotePrefillFellBack(FallbackReason.PREFILL_ERROR.label());
            return CompletableFuture.completedFuture(false);
        }
        PushReservations.Reservation reservation = reservations.open(target);
        GenerationRequest request = target.request();
        PrefillRequest prefill = new PrefillRequest(request.id(), request.prompt(), self.id().toString(),
                target.blockIds(), target.firstBlock(), reservation.id(), SamplingMapping.options(request.sampling()));
        metrics.remotePrefillStarted();
        CompletableFuture<Boolean> result = new CompletableFuture<>();
        Disposable call = Mono.fromCallable(() -> peers.prefillWorker(worker.get().id())
                        .orElseThrow(() -> new StageException(ErrorCode.UNAVAILABLE, "prefill worker " + worker.get().id()
                                + " is not reachable")))
                .subscribeOn(Schedulers.boundedElastic())
                .flatMap(service -> service.prefill(prefill))
                .zipWith(Mono.fromFuture(reservation.received(), true).thenReturn(true))
                .timeout(config.timeout())
                .subscribe(done -> {
                    log(request, worker.get(), done.getT1());
                    result.complete(true);
                }, error -> {
                    if (result.isDone()) {
                        return; // the scheduler gave the pages up (cancel, preemption): not a fallback
                    }
                    FallbackReason reason = reason(error, reservation);
                    metrics.remotePrefillFellBack(reason.label());
                    LOG.warn("remote prefill of {} on {} failed ({}: {}); prefilling locally",
                            request.id(), worker.get().id(), reason.label(), error.getMessage());
                    result.complete(false);
                });
        result.whenComplete((filled, error) -> {
            call.dispose(); // cancels the prefill (and so its push) when the scheduler gave the pages up
            reservations.close(reservation);
        });
        return result;
    }

    /** The push's own failure says most (the prefill's error is then its echo); else the prefill's error. */
    private static FallbackReason reason(Throwable error, PushReservations.Reservation reservation) {
        Throwable pushed = reservation.received().handle((done, failure) -> failure).getNow(null);
        if (pushed instanceof RemotePrefillFailure failure) {
            return failure.reason();
        }
        if (error instanceof RemotePrefillFailure failure) {
            return failure.reason();
        }
        return error instanceof TimeoutException ? FallbackReason.TIMEOUT : FallbackReason.PREFILL_ERROR;
    }

    private static void log(GenerationRequest request, WorkerInstance worker, PrefillResult result) {
        LOG.debug("remote prefill of {} on {}: {} blocks pushed, first token {}",
                request.id(), worker.id(), result.blocksWritten(), result.firstToken());
    }
}

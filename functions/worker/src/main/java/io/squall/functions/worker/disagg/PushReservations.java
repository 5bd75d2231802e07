package io.squall.functions.worker.disagg;

import io.squall.functions.api.ErrorCode;
import io.squall.functions.api.KvBlockFrame;
import io.squall.functions.api.KvPushHeader;
import io.squall.functions.api.KvPushService;
import io.squall.functions.api.StageException;
import io.squall.functions.engine.batch.PrefillTarget;
import io.squall.functions.worker.metrics.WorkerMetrics;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A decode worker's open KV reservations, and its {@code kv.push} service that fills them. Each
 * reservation is one {@link PrefillTarget} (pages the scheduler reserved for one prompt) waiting for
 * exactly one push of exactly its blocks; {@link Reservation#received()} completes when all were
 * written, or fails with a {@link RemotePrefillFailure} saying why not.
 *
 * <p>Every frame is checked before a byte is written: CRC32C (by the decoder), index, hash and size (by
 * the target). A mismatch, a stream that ends early or breaks off, or a second push for the same
 * reservation fails that push alone with a typed error.
 *
 * <p>Demand: at most {@value #FRAMES_AHEAD} frames are requested ahead of the one being written; frames
 * are written on the thread that delivers them. Thread-safe.
 */
public final class PushReservations implements KvPushService {

    private static final int FRAMES_AHEAD = 4;

    private final ConcurrentHashMap<Long, Reservation> open = new ConcurrentHashMap<>();
    /** Starts at a random point so a restarted worker does not accept pushes meant for its predecessor. */
    private final AtomicLong nextId = new AtomicLong(ThreadLocalRandom.current().nextLong());
    private final WorkerMetrics metrics;

    public PushReservations(WorkerMetrics metrics) {
        this.metrics = Objects.requireNonNull(metrics, "metrics");
    }

    /** One reservation: its id on the wire, its pages, and the outcome of the push into them. */
    public static final class Reservation {
        private final long id;
        private final PrefillTarget target;
        private final CompletableFuture<Void> received = new CompletableFuture<>();
        private final AtomicBoolean claimed = new AtomicBoolean();

        private Reservation(long id, PrefillTarget target) {
            this.id = id;
            this.target = target;
        }

        public long id() {
            return id;
        }

        /** Completes when every block was written; fails with a {@link RemotePrefillFailure}. */
        public CompletableFuture<Void> received() {
            return received;
        }
    }

    /** Opens a reservation for {@code target}'s pages; close it when the remote prefill is over. */
    public Reservation open(PrefillTarget target) {
        Reservation reservation = new Reservation(nextId.incrementAndGet(), Objects.requireNonNull(target, "target"));
        open.put(reservation.id, reservation);
        return reservation;
    }

    /** Forgets the reservation; a push still arriving for it is refused. */
    public void close(Reservation reservation) {
        open.remove(reservation.id, reservation);
        reservation.received.completeExceptionally(new RemotePrefillFailure(FallbackReason.TORN_TRANSFER,
                "the reservation closed before its blocks arrived"));
    }

    /** Reservations open now. */
    public int openCount() {
        return open.size();
    }

    @Override
    public Mono<Void> push(KvPushHeader header, Flux<KvBlockFrame> frames) {
        Objects.requireNonNull(header, "header");
        Objects.requireNonNull(frames, "frames");
        Reservation reservation = open.get(header.reservation());
        if (reservation == null) {
            return Mono.error(new StageException(ErrorCode.NOT_FOUND, "no open KV reservation " + header.reservation()));
        }
        if (!reservation.claimed.compareAndSet(false, true)) {
            return Mono.error(new StageException(ErrorCode.INVALID_REQUEST,
                    "KV reservation " + header.reservation() + " is already being pushed"));
        }
        int expected = reservation.target.blockIds().length;
        if (header.blocks() != expected) {
            return fail(reservation, new RemotePrefillFailure(FallbackReason.CORRUPT_FRAME,
                    "the push announces " + header.blocks() + " blocks; " + expected + " were reserved"));
        }
        AtomicInteger written = new AtomicInteger();
        return frames
                .limitRate(FRAMES_AHEAD)
                .doOnNext(frame -> {
                    write(reservation, frame);
                    written.incrementAndGet();
                    metrics.kvBlocksReceived();
                })
                .then(Mono.defer(() -> written.get() == expected ? Mono.<Void>empty()
                        : Mono.error(new RemotePrefillFailure(FallbackReason.TORN_TRANSFER,
                                "the push ended after " + written.get() + " of " + expected + " blocks"))))
                .doOnSuccess(done -> reservation.received.complete(null))
                .onErrorResume(error -> fail(reservation, failure(error)))
                .doOnCancel(() -> reservation.received.completeExceptionally(
                        new RemotePrefillFailure(FallbackReason.TORN_TRANSFER, "the push was cancelled")));
    }

    private static void write(Reservation reservation, KvBlockFrame frame) {
        boolean written;
        try {
            written = reservation.target.write(frame.index(), frame.blockHash(), frame.payload());
        } catch (IllegalArgumentException mismatch) {
            throw new RemotePrefillFailure(FallbackReason.CORRUPT_FRAME, mismatch.getMessage());
        }
        if (!written) {
            throw new RemotePrefillFailure(FallbackReason.TORN_TRANSFER, "the decode worker gave the reserved pages up");
        }
    }

    /** A frame the decoder refused (CRC32C, truncation) is corrupt; any other break is a torn transfer. */
    private static RemotePrefillFailure failure(Throwable error) {
        if (error instanceof RemotePrefillFailure failure) {
            return failure;
        }
        if (error instanceof StageException stage && stage.code() == ErrorCode.INVALID_REQUEST) {
            return new RemotePrefillFailure(FallbackReason.CORRUPT_FRAME, stage.getMessage());
        }
        return new RemotePrefillFailure(FallbackReason.TORN_TRANSFER, String.valueOf(error.getMessage()));
    }

    private static Mono<Void> fail(Reservation reservation, RemotePrefillFailure failure) {
        reservation.received.completeExceptionally(failure);
        return Mono.error(new StageException(ErrorCode.INVALID_REQUEST, "KV push rejected ("
                + failure.reason().label() + "): " + failure.getMessage()));
    }
}

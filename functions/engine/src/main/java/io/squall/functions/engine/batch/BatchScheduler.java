package io.squall.functions.engine.batch;

import io.squall.functions.api.FinishReason;
import io.squall.functions.engine.model.ForwardPass;
import io.squall.functions.engine.model.PagedKvCache;
import io.squall.functions.engine.sampling.SampledToken;
import io.squall.functions.engine.sampling.Sampler;
import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent.StoredBlock;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.offload.OnboardTransfer;
import io.squall.kvgrid.pool.BlockPool;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Continuous batching over one {@link ForwardPass}. A dedicated thread owns every sequence and runs
 * steps: admit waiting sequences while KV blocks and batch slots allow, run one forward pass holding
 * one token of each decoding sequence that has demand plus prompt chunks up to the token budget, then
 * sample and deliver. Sequences join and leave between steps.
 *
 * <p>Callers interact only through {@link #submit} and the returned {@link Generation}; both are
 * thread-safe. Output is delivered on the scheduler thread to each {@link TokenSink}.
 *
 * <p>KV: sequences keep their keys and values in the pages of a {@link KvPool}. On admission a
 * sequence reuses the longest cached prefix of its tokens (G1), and the blocks that follow it are
 * onboarded from lower tiers straight into pages it then holds, on the offload manager's threads: blocks in
 * host memory stream in a layer at a time while the sequence already computes the rest of its prompt (each
 * layer's attention waits for that layer), anything from disk or another worker is read and verified while
 * the sequence waits, never blocking a step.
 * Full blocks are committed as they fill, so later prompts with the same prefix skip their compute.
 * A sequence submitted with a {@link RemotePrefill} may instead have its uncached full prompt blocks
 * written by another worker into pages reserved at admission; it waits like an onboarding one and
 * computes them itself if the transfer fails. Each prompt block is reported to the sink as soon as its
 * KV is ready ({@link TokenSink#onPromptBlock}), which is how a prefill worker streams blocks out.
 *
 * <p>Buffering: a sequence computes a token only when its consumer has demand for it, so no token is
 * ever queued inside the scheduler. The submission queue is bounded by
 * {@link BatchConfig#maxWaitingSequences()}.
 */
public final class BatchScheduler implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BatchScheduler.class);
    private static final Runnable WAKE = () -> { };
    /** How long an idle scheduler sleeps before re-checking, as a safety net; wake-ups are explicit. */
    private static final long IDLE_POLL_MILLIS = 200;

    private final ForwardPass forwardPass;
    private final BatchConfig config;
    private final IntPredicate isEndOfGeneration;
    private final KvPool kv;
    private final LinkedBlockingQueue<Runnable> inbox = new LinkedBlockingQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    private final ArrayDeque<Sequence> waiting = new ArrayDeque<>();
    private final List<Sequence> running = new ArrayList<>();
    private final List<ForwardPass.Segment> segments = new ArrayList<>();
    private final List<Sequence> scheduled = new ArrayList<>();
    private final Thread thread;
    private volatile boolean closed;
    private volatile BatchStats stats;
    private int lastStepTokens;
    private long steps;
    private long generatedTokens;
    private long preemptions;
    private long promptTokensComputed;

    /**
     * Starts the scheduler thread.
     *
     * @param isEndOfGeneration the tokens that end a sequence (unless it ignores them)
     * @param kv the KV storage, used only by the scheduler thread from now on; its layout must be the model's
     */
    public BatchScheduler(ForwardPass forwardPass, BatchConfig config, IntPredicate isEndOfGeneration, KvPool kv) {
        this.forwardPass = forwardPass;
        this.config = config;
        this.isEndOfGeneration = isEndOfGeneration;
        this.kv = kv;
        if (!forwardPass.kvLayout(kv.pool().layout().blockSize()).equals(kv.pool().layout())) {
            throw new IllegalArgumentException("the KV pool's layout " + kv.pool().layout() + " does not fit the forward pass's "
                    + forwardPass.kvLayout(kv.pool().layout().blockSize()));
        }
        this.stats = new BatchStats(0, 0, kv.pool().capacity(), kv.pool().capacity(), 0, 0, 0, 0, 0);
        this.thread = Thread.ofPlatform().name("squall-batch").daemon(true).start(this::loop);
    }

    public BatchConfig config() {
        return config;
    }

    /** The latest load snapshot; updated after every step. */
    public BatchStats stats() {
        return stats;
    }

    /**
     * The longest sequence this scheduler can ever run, in tokens (prompt plus generated): the smaller of the
     * forward pass's positions and what the whole KV pool holds. What a worker advertises as its context length.
     */
    public int maxSequenceTokens() {
        return (int) Math.min(forwardPass.maxPositions(), (long) kv.pool().capacity() * kv.pool().layout().blockSize());
    }

    /**
     * Queues a sequence. Nothing is generated until its {@link Generation} receives demand.
     *
     * @return {@link Admission.Queued}, or {@link Admission.Rejected} when the request can never fit
     *         (prompt beyond {@link #maxSequenceTokens()}, token ids outside the vocabulary) or the queue is full
     */
    public Admission submit(GenerationRequest request, TokenSink sink) {
        return submit(request, sink, RemotePrefill.NONE, 0);
    }

    /**
     * As {@link #submit(GenerationRequest, TokenSink)}, with demand for {@code demand} tokens from the start. A
     * caller that knows its demand passes it here: the scheduler may plan a step before a later
     * {@link Generation#request} arrives, and a prompt without demand then leaves its last token (the one that
     * yields the first output token) to another step.
     */
    public Admission submit(GenerationRequest request, TokenSink sink, long demand) {
        return submit(request, sink, RemotePrefill.NONE, demand);
    }

    /**
     * As {@link #submit(GenerationRequest, TokenSink, long)}, letting {@code remote} compute the prompt's uncached
     * blocks on another worker (see {@link RemotePrefill}); the output is the same either way.
     *
     * @param demand tokens wanted from the start, 0 for none yet
     */
    public Admission submit(GenerationRequest request, TokenSink sink, RemotePrefill remote, long demand) {
        Objects.requireNonNull(remote, "remote");
        if (demand < 0) {
            throw new IllegalArgumentException("demand must not be negative, got " + demand);
        }
        int promptLength = request.promptLength();
        int context = maxSequenceTokens();
        if (promptLength >= context) {
            return new Admission.Rejected("the prompt has " + promptLength + " tokens; this worker runs sequences of at most "
                    + context + " tokens, including at least one generated token", false);
        }
        int vocab = forwardPass.vocabSize();
        for (int i = 0; i < promptLength; i++) {
            int token = request.promptToken(i);
            if (token < 0 || token >= vocab) {
                return new Admission.Rejected("token id " + token + " is outside the vocabulary of " + vocab, false);
            }
        }
        if (closed) {
            return new Admission.Rejected("the scheduler is shut down", true);
        }
        if (queued.incrementAndGet() > config.maxWaitingSequences()) {
            queued.decrementAndGet();
            return new Admission.Rejected("the queue is full (" + config.maxWaitingSequences() + " waiting)", true);
        }
        int capacity = (int) Math.min(context, (long) promptLength + request.maxTokens());
        Sequence sequence = new Sequence(request, sink, remote, new Sampler(request.sampling(), vocab), capacity, vocab,
                this::wake);
        if (demand > 0) {
            sequence.request(demand);
        }
        inbox.add(() -> {
            queued.decrementAndGet();
            waiting.addLast(sequence);
        });
        return new Admission.Queued(sequence);
    }

    private void wake() {
        inbox.offer(WAKE);
    }

    private void loop() {
        boolean idle = false;
        while (!closed) {
            try {
                Runnable command = idle ? inbox.poll(IDLE_POLL_MILLIS, TimeUnit.MILLISECONDS) : inbox.poll();
                while (command != null) {
                    command.run();
                    command = inbox.poll();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            reapCancelled();
            admit();
            installOnboarded();
            installPrefilled();
            idle = !step();
            publishStats();
        }
        shutDownSequences();
    }

    private void reapCancelled() {
        for (Iterator<Sequence> it = running.iterator(); it.hasNext(); ) {
            Sequence s = it.next();
            if (s.isCancelled()) {
                it.remove();
                release(s);
                finish(s, FinishReason.CANCELLED);
            }
        }
        for (Iterator<Sequence> it = waiting.iterator(); it.hasNext(); ) {
            Sequence s = it.next();
            if (s.isCancelled()) {
                it.remove();
                finish(s, FinishReason.CANCELLED);
            }
        }
    }

    /**
     * Admits waiting sequences in arrival order while the batch has room and the pool has blocks for
     * their tokens beyond the cached prefix they reuse. Deciding takes nothing: the prompt is hashed and the
     * pool probed, and only an admitted sequence takes its cached prefix (and counts as a lookup).
     */
    private void admit() {
        while (!waiting.isEmpty() && running.size() < config.maxRunningSequences()) {
            Sequence next = waiting.peekFirst();
            PagedKvCache cache = new PagedKvCache(kv.pool(), kv.hasher(), forwardPass.maxPositions());
            List<StoredBlock> reusable = config.prefixCaching() ? cache.hashPrompt(next.tokens, next.tokenCount) : List.of();
            BlockPool.PrefixProbe cached = config.prefixCaching() ? cache.probeCachedPrefix() : new BlockPool.PrefixProbe(0, 0);
            // The cached prefix's free blocks leave the free lists when taken: they are not room for the rest.
            if (blocksFor(next.tokenCount + 1) - cached.blocks() > kv.pool().freeBlocks() - cached.free()) {
                return; // first come, first served: later arrivals do not overtake it (and nothing was taken)
            }
            waiting.pollFirst();
            if (config.prefixCaching()) {
                cache.takeCachedPrefix();
            }
            next.cache = cache;
            if (!next.admittedBefore) {
                next.cached(Tier.G1, cache.length());
            }
            if (!startRemotePrefill(next, reusable)) {
                startOnboard(next, reusable);
            }
            running.add(next);
            reportPromptBlocks(next);
        }
    }

    /**
     * Starts bringing the prompt blocks after the G1 prefix back from the lower tiers, into pages the
     * sequence takes now for as many blocks as the tiers may hold (admission counted them): streamed ones
     * count as computed at once, read ones make the sequence wait.
     */
    private void startOnboard(Sequence s, List<StoredBlock> reusable) {
        int first = s.cache.blockCount();
        int blockSize = kv.pool().layout().blockSize();
        if (kv.offload() == null || reusable.size() <= first) {
            return;
        }
        OnboardTransfer transfer = kv.offload().onboard(reusable, first, kv.pool().layout(),
                count -> s.cache.ensureCapacity((first + count) * blockSize) ? s.cache.pages(first, count) : null);
        if (transfer.isStreamed()) {
            s.cache.startStreaming(transfer.streamedBlocks(), transfer);
        } else if (!transfer.done().isDone() || transfer.done().join() > 0) {
            s.onboarding = transfer;
            transfer.done().whenComplete((filled, error) -> wake());
        }
    }

    /**
     * Reserves pages for the prompt's full blocks past the cached prefix and hands them to the sequence's
     * {@link RemotePrefill}, if it wants them (only on first admission: a readmitted sequence recomputes).
     * Admission already checked that the pool has the pages.
     *
     * @return false when no pages were reserved (not wanted, or no room), so the caller may onboard the
     *     blocks from lower tiers instead
     */
    private boolean startRemotePrefill(Sequence s, List<StoredBlock> reusable) {
        int first = s.cache.blockCount();
        int uncached = s.tokenCount - first * kv.pool().layout().blockSize();
        if (s.admittedBefore || reusable.size() <= first || !s.remote.wanted(s.request, uncached)
                || !s.cache.ensureCapacity(reusable.size() * kv.pool().layout().blockSize())) {
            return false;
        }
        List<BlockHash> hashes = reusable.subList(first, reusable.size()).stream().map(StoredBlock::hash).toList();
        ReservedPages pages = new ReservedPages(s.request, first,
                s.cache.blockIds(first, reusable.size() - first), hashes, kv.pool());
        CompletableFuture<Boolean> fill;
        try {
            fill = Objects.requireNonNull(s.remote.start(pages), "remote prefill future");
        } catch (RuntimeException e) {
            LOG.warn("remote prefill of " + s.request.id() + " did not start; computing here", e);
            pages.close();
            return true; // the pages are reserved now: the sequence computes into them
        }
        s.reserved = pages;
        s.remoteFill = fill;
        fill.whenComplete((filled, error) -> wake());
        return true;
    }

    /**
     * Takes over the pages of finished remote prefills: complete ones become computed prompt blocks; after
     * a failed or torn transfer the pages stay reserved and the sequence computes them itself.
     */
    private void installPrefilled() {
        for (Sequence s : running) {
            if (s.remoteFill == null || !s.remoteFill.isDone()) {
                continue;
            }
            boolean succeeded = s.remoteFill.handle((filled, error) -> error == null && Boolean.TRUE.equals(filled)).join();
            boolean complete = s.reserved.close();
            if (succeeded && complete) {
                s.cache.markComputed(s.reserved.blockIds().length * kv.pool().layout().blockSize(), s.tokens);
            } else {
                LOG.debug("remote prefill of {} failed; computing it here", s.request.id());
            }
            s.reserved = null;
            s.remoteFill = null;
        }
    }

    /** Tells the sink about prompt blocks that became ready since it was last told. */
    private void reportPromptBlocks(Sequence s) {
        int ready = Math.min(s.cache.committedBlocks(), s.request.promptLength() / kv.pool().layout().blockSize());
        try {
            for (; s.reportedBlocks < ready; s.reportedBlocks++) {
                s.sink.onPromptBlock(s.reportedBlocks, s.cache.blockHash(s.reportedBlocks), s.cache.page(s.reportedBlocks));
            }
        } catch (RuntimeException e) {
            LOG.warn("token sink of " + s.request.id() + " failed on a prompt block; cancelling it", e);
            s.cancel();
        }
    }

    /**
     * Takes over the pages of finished onboards: read blocks become computed prompt blocks; streamed ones,
     * already counted as computed, are committed (or, if the transfer broke off, the sequence starts over).
     */
    private void installOnboarded() {
        for (Sequence s : List.copyOf(running)) {
            if (s.onboarding != null && s.onboarding.done().isDone()) {
                OnboardTransfer transfer = s.onboarding;
                s.onboarding = null;
                s.cache.markComputed(transfer.done().join() * kv.pool().layout().blockSize(), s.tokens);
                countOnboarded(s, transfer);
                reportPromptBlocks(s);
            }
            if (s.cache != null && s.cache.streaming() != null && s.cache.streaming().done().isDone()) {
                finishStreaming(s);
            }
        }
    }

    /**
     * Commits the streamed blocks of a sequence whose transfer is done. If the transfer broke off (it was
     * closed, or a lane failed), the pages it counted as computed are not whole: the sequence goes back to
     * the head of the queue to start over.
     *
     * @return whether the blocks were whole
     */
    private boolean finishStreaming(Sequence s) {
        OnboardTransfer transfer = s.cache.streaming();
        if (transfer.done().join() < transfer.streamedBlocks()) {
            LOG.warn("streamed onboard of {} broke off; starting it over", s.request.id());
            preempt(s);
            return false;
        }
        s.cache.endStreaming();
        s.cache.commitFullBlocks(s.tokens);
        countOnboarded(s, transfer);
        reportPromptBlocks(s);
        return true;
    }

    /** Counts a finished onboard's blocks as cached prompt tokens, by source tier (on first admission only). */
    private void countOnboarded(Sequence s, OnboardTransfer transfer) {
        if (!s.admittedBefore) {
            transfer.sources().forEach(tier -> s.cached(tier, kv.pool().layout().blockSize()));
        }
    }

    /** Plans and runs one forward pass; returns false when there was nothing to run. */
    private boolean step() {
        segments.clear();
        scheduled.clear();
        int budget = config.maxBatchedTokens();
        // Decoding sequences first, so a long prompt never stalls running streams.
        for (int i = 0; i < running.size() && budget > 0; i++) {
            Sequence s = running.get(i);
            if (!s.awaitsKv() && s.tokenCount - s.computed() == 1 && s.demand() > 0 && reserve(s, s.tokenCount)) {
                schedule(s, 1);
                budget--;
            }
        }
        for (int i = 0; i < running.size(); i++) {
            Sequence s = running.get(i);
            int remaining = s.tokenCount - s.computed();
            if (remaining <= 1 || s.finished || s.awaitsKv()) {
                continue;
            }
            int chunk = config.chunkedPrefill() ? Math.min(remaining, budget) : remaining;
            if (chunk == remaining && s.demand() == 0) {
                chunk--; // leave the last token until someone wants the output
            }
            if (chunk <= 0 || !reserve(s, s.computed() + chunk)) {
                continue;
            }
            schedule(s, chunk);
            budget -= chunk;
            if (budget <= 0 && config.chunkedPrefill()) {
                break;
            }
        }
        if (segments.isEmpty()) {
            kv.events().flush(); // the offload thread's events (blocks written to lower tiers) reach routers while idle too
            return false;
        }
        int stepTokens = config.maxBatchedTokens() - budget;
        try {
            forwardPass.forward(segments);
        } catch (RuntimeException e) {
            LOG.error("forward pass failed; failing its " + scheduled.size() + " sequences", e);
            for (Sequence s : scheduled) {
                running.remove(s);
                release(s);
                fail(s, e);
            }
            return true;
        }
        steps++;
        lastStepTokens = stepTokens;
        for (Sequence s : scheduled) {
            if (s.cache.streaming() != null) {
                s.cache.streaming().done().join(); // the forward pass waited for its last layer: done or closed
                if (!finishStreaming(s)) {
                    continue;
                }
            }
            s.cache.commitFullBlocks(s.tokens);
            reportPromptBlocks(s);
            if (s.computed() == s.tokenCount) {
                sampleNext(s);
            }
        }
        running.removeIf(s -> s.finished);
        kv.events().flush();
        return true;
    }

    private void schedule(Sequence s, int count) {
        boolean reachesEnd = s.computed() + count == s.tokenCount;
        promptTokensComputed += Math.max(0, Math.min(count, s.request.promptLength() - s.computed()));
        segments.add(new ForwardPass.Segment(s.cache, s.tokens, s.computed(), count, reachesEnd ? s.logits : null));
        scheduled.add(s);
    }

    /**
     * Makes sure {@code s} holds pages for {@code positions} tokens, preempting the most recently
     * admitted other sequences if the pool is short. Returns false when that is impossible.
     */
    private boolean reserve(Sequence s, int positions) {
        while (!s.cache.ensureCapacity(positions)) {
            Sequence victim = youngestPreemptable(s);
            if (victim == null) {
                return false;
            }
            preempt(victim);
        }
        return true;
    }

    private Sequence youngestPreemptable(Sequence exclude) {
        for (int i = running.size() - 1; i >= 0; i--) {
            Sequence candidate = running.get(i);
            if (candidate != exclude && !scheduled.contains(candidate) && candidate.cache.blockCount() > 0) {
                return candidate;
            }
        }
        return null;
    }

    /** Frees a sequence's KV and puts it back at the head of the queue; it recomputes its tokens when readmitted. */
    private void preempt(Sequence victim) {
        running.remove(victim);
        release(victim);
        victim.admittedBefore = true;
        waiting.addFirst(victim);
        preemptions++;
        LOG.debug("preempted sequence {} holding {} tokens", victim.request.id(), victim.tokenCount);
    }

    /** Returns a sequence's pages to the pool; its committed blocks stay cached for reuse. */
    private void release(Sequence s) {
        if (s.reserved != null) {
            s.reserved.close(); // first: no pushed frame may land in a page once it is back in the pool
            s.remoteFill.cancel(false);
            s.reserved = null;
            s.remoteFill = null;
        }
        if (s.onboarding != null) {
            s.onboarding.close(); // first: no onboarded block may land in a page once it is back in the pool
            s.onboarding = null;
        }
        if (s.cache != null) {
            if (s.cache.streaming() != null) {
                s.cache.streaming().close();
            }
            s.cache.release();
            s.cache = null;
        }
    }

    private int blocksFor(int tokens) {
        int blockSize = kv.pool().layout().blockSize();
        return (tokens + blockSize - 1) / blockSize;
    }

    private void sampleNext(Sequence s) {
        int token;
        SampledToken detail = null;
        try {
            if (s.request.topLogprobs() >= 0) {
                detail = s.sampler.sampleWithLogprobs(s.logits, s.history, s.request.topLogprobs());
                token = detail.tokenId();
            } else {
                token = s.sampler.sample(s.logits, s.history);
            }
        } catch (RuntimeException e) {
            release(s);
            fail(s, e);
            return;
        }
        if (!s.request.ignoreEos() && isEndOfGeneration.test(token)) {
            release(s);
            finish(s, FinishReason.STOP);
            return;
        }
        s.tokens[s.tokenCount++] = token;
        s.history.add(token);
        s.generated++;
        generatedTokens++;
        s.consumeDemand();
        try {
            s.sink.onToken(token, detail);
        } catch (RuntimeException e) {
            LOG.warn("token sink of " + s.request.id() + " failed; cancelling it", e);
            release(s);
            s.finished = true;
            return;
        }
        if (s.generated >= s.request.maxTokens() || s.tokenCount >= s.tokens.length) {
            release(s);
            finish(s, FinishReason.LENGTH);
        }
    }

    private void finish(Sequence s, FinishReason reason) {
        s.finished = true;
        try {
            s.sink.onFinish(reason, new TokenSink.Usage(s.request.promptLength(), s.generated, s.cachedTokens,
                    s.cacheSources()));
        } catch (RuntimeException e) {
            LOG.warn("token sink of " + s.request.id() + " failed on finish", e);
        }
    }

    private void fail(Sequence s, Throwable error) {
        s.finished = true;
        try {
            s.sink.onError(error);
        } catch (RuntimeException e) {
            LOG.warn("token sink of " + s.request.id() + " failed on error", e);
        }
    }

    private void publishStats() {
        stats = new BatchStats(running.size(), waiting.size() + queued.get(), kv.pool().freeBlocks(), kv.pool().capacity(),
                lastStepTokens, steps, generatedTokens, preemptions, promptTokensComputed);
    }

    private void shutDownSequences() {
        IllegalStateException closing = new IllegalStateException("the scheduler shut down");
        Runnable command;
        while ((command = inbox.poll()) != null) {
            command.run();
        }
        for (Sequence s : running) {
            release(s);
            fail(s, closing);
        }
        for (Sequence s : waiting) {
            fail(s, closing);
        }
        running.clear();
        waiting.clear();
        kv.events().flush();
    }

    /** Stops the scheduler thread; sequences still running or waiting get an error. */
    @Override
    public void close() {
        closed = true;
        wake();
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

package io.squall.scheduler.profile;

import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * What one worker of a model on some hardware can do, as {@code squall bench profile} measures it (or as it is
 * built from published figures): prompt time against input length, decode step time against batch and context,
 * and the fitted step-timing coefficients that drive the mock engine. The planner sizes pools from the tables;
 * the mock engine replays the timing. Written as JSON by {@link ProfileFiles}.
 *
 * @param format always {@link #FORMAT}
 * @param model the model it describes, e.g. {@code llama-124m-q8_0}
 * @param hardware what it ran on, e.g. {@code cpu2} or {@code h100-sxm}
 * @param source how the figures were obtained (the command, or the publications they come from)
 * @param worker the worker settings the figures hold for
 * @param timing step-time coefficients: what a step of given shape costs
 * @param prefill time to first token against prompt length, a prompt alone on the worker, ascending by length;
 *     empty in a profile written by hand with only the timing (enough for the mock engine, not for the planner)
 * @param decode inter-token latency against running sequences and their context, ascending by batch then context;
 *     empty likewise
 */
public record Profile(String format, String model, String hardware, String source, WorkerShape worker, Timing timing,
                      List<PrefillPoint> prefill, List<DecodePoint> decode) {

    public static final String FORMAT = "squall-profile/1";

    public Profile {
        if (!FORMAT.equals(format)) {
            throw new IllegalArgumentException("not a Squall profile: format must be \"" + FORMAT + "\", got " + format);
        }
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(hardware, "hardware");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(worker, "worker");
        Objects.requireNonNull(timing, "timing");
        prefill = (prefill == null ? List.<PrefillPoint>of() : prefill).stream().sorted(Comparator.comparingInt(PrefillPoint::isl)).toList();
        decode = (decode == null ? List.<DecodePoint>of() : decode).stream().sorted(Comparator.comparingInt(DecodePoint::batch)
                .thenComparingInt(DecodePoint::context)).toList();
    }

    /**
     * The worker the figures hold for.
     *
     * @param blockSize tokens per KV block
     * @param maxSequences sequences batched at once
     * @param maxBatchedTokens tokens per step (decode rows plus prompt chunks)
     * @param kvCapacityTokens tokens the worker's KV memory (G1) holds
     * @param contextLength the longest sequence, in tokens
     */
    public record WorkerShape(int blockSize, int maxSequences, int maxBatchedTokens, long kvCapacityTokens,
                              int contextLength) {
        public WorkerShape {
            if (blockSize < 1 || maxSequences < 1 || maxBatchedTokens < 1 || kvCapacityTokens < 1 || contextLength < 2) {
                throw new IllegalArgumentException("worker shape out of range: " + blockSize + "/" + maxSequences + "/"
                        + maxBatchedTokens + "/" + kvCapacityTokens + "/" + contextLength);
            }
        }
    }

    /**
     * A step of {@code rows} tokens takes {@code base(rows)} (piecewise linear through {@code base}) plus
     * {@code decodeContextNsPerToken} per position a decode row attends to, plus {@code prefillNsPerPair} per
     * query-key pair of a prompt chunk. Bringing a cached token's KV back from the worker's host memory or disk
     * into its working pool takes {@code onboardNsPerToken} (absent from a file: 0, a copy negligible next to a
     * step); the router weighs it against recomputing the token.
     */
    public record Timing(List<Knot> base, double decodeContextNsPerToken, double prefillNsPerPair,
                         Double onboardNsPerToken) {
        public Timing {
            onboardNsPerToken = onboardNsPerToken == null ? 0.0 : onboardNsPerToken; // files older than the field
            if (base == null || base.isEmpty()) {
                throw new IllegalArgumentException("timing needs at least one base knot");
            }
            base = base.stream().sorted(Comparator.comparingInt(Knot::rows)).toList();
            if (!(decodeContextNsPerToken >= 0) || !(prefillNsPerPair >= 0) || !(onboardNsPerToken >= 0)) {
                throw new IllegalArgumentException("timing coefficients must be non-negative");
            }
        }

        /** A step's timing with onboarding left out. */
        public Timing(List<Knot> base, double decodeContextNsPerToken, double prefillNsPerPair) {
            this(base, decodeContextNsPerToken, prefillNsPerPair, 0.0);
        }
    }

    /** The base cost of a step of {@code rows} tokens, in milliseconds. */
    public record Knot(int rows, double ms) {
        public Knot {
            if (rows < 1 || !(ms >= 0)) {
                throw new IllegalArgumentException("a knot needs rows >= 1 and ms >= 0, got " + rows + ", " + ms);
            }
        }
    }

    /** A prompt of {@code isl} tokens alone on the worker gets its first token after {@code ttftMs}. */
    public record PrefillPoint(int isl, double ttftMs) {
        public PrefillPoint {
            if (isl < 1 || !(ttftMs > 0)) {
                throw new IllegalArgumentException("a prefill point needs isl >= 1 and ttft > 0, got " + isl + ", " + ttftMs);
            }
        }

        /** Prompt tokens per second. */
        public double tokensPerSecond() {
            return isl / ttftMs * 1e3;
        }
    }

    /** {@code batch} sequences decoding at {@code context} tokens each get a token every {@code itlMs}. */
    public record DecodePoint(int batch, int context, double itlMs) {
        public DecodePoint {
            if (batch < 1 || context < 1 || !(itlMs > 0)) {
                throw new IllegalArgumentException("a decode point needs batch, context >= 1 and itl > 0, got "
                        + batch + ", " + context + ", " + itlMs);
            }
        }

        /** Output tokens per second of the whole batch. */
        public double tokensPerSecond() {
            return batch / itlMs * 1e3;
        }
    }
}

package io.squall.functions.engine.sampling;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * Picks a sequence's next token from the model's logits, following llama.cpp's sampler chain:
 * <ol>
 *   <li>the logit bias, added to the listed tokens' logits;</li>
 *   <li>penalties (repetition, presence, frequency) over the last {@code penaltyLastN} tokens of the history;</li>
 *   <li>greedy: if {@code temperature == 0}, the argmax (ties: the lowest id), and nothing is drawn;</li>
 *   <li>top-k, then top-p, then min-p, each restricting the candidates of the previous step, with probabilities
 *       computed from the current logits before temperature (softmax over the surviving candidates);</li>
 *   <li>temperature: the surviving logits are divided by it;</li>
 *   <li>one draw from the resulting distribution with the sequence's {@link SplittableRandom}.</li>
 * </ol>
 * Same parameters, seed, histories and logits give the same tokens: each non-greedy step consumes exactly one
 * {@code nextDouble()}.
 *
 * <p>Cost per step for a vocabulary of V tokens: one pass to find the argmax, plus O(V log k) for top-k, or
 * (top-p without top-k) a few partial selections of growing size until the nucleus is covered, so the vocabulary
 * is never fully sorted unless the distribution is nearly flat. Buffers grow to the largest candidate set seen and
 * are reused, so steady-state sampling allocates nothing.
 *
 * <p>Not thread-safe: one instance per sequence. The logits array may be modified in place (the penalties);
 * truncation and temperature never write to it.
 */
public final class Sampler {
    /** First guess of the nucleus size for top-p without top-k, in tokens; multiplied by 4 while too small. */
    private static final int FIRST_NUCLEUS_GUESS = 64;

    private final SamplingParams params;
    private final int vocabularySize;
    private final SplittableRandom random;
    private final Penalties penalties;
    private long[] keys = new long[0];
    private int[] ids = new int[0];
    private float[] weights = new float[0];

    /**
     * @param params         the request's sampling parameters, not null
     * @param vocabularySize the number of logits the model produces per step, {@code > 0}
     */
    public Sampler(SamplingParams params, int vocabularySize) {
        this.params = Objects.requireNonNull(params, "params");
        if (vocabularySize <= 0) {
            throw new IllegalArgumentException("vocabularySize must be > 0, got " + vocabularySize);
        }
        this.vocabularySize = vocabularySize;
        this.random = params.seed() == null ? new SplittableRandom() : new SplittableRandom(params.seed());
        this.penalties = params.hasPenalties() ? new Penalties(params) : null;
    }

    /** The parameters this sampler applies. */
    public SamplingParams params() {
        return params;
    }

    /**
     * Chooses the next token.
     *
     * @param logits  the model's logits for the next position, one per vocabulary entry; modified in place by the
     *                penalties; must not contain NaN or +Infinity (-Infinity masks a token)
     * @param history the sequence's tokens so far (prompt and generated), read by the penalties; not modified
     * @return the chosen token id, in {@code [0, vocabularySize)}
     * @throws IllegalArgumentException if the logits have the wrong length, contain NaN or +Infinity, are all
     *                                  -Infinity, or the history holds an id outside the vocabulary
     */
    public int sample(float[] logits, TokenHistory history) {
        return choose(logits, prepare(logits, history));
    }

    /**
     * Chooses the next token like {@link #sample} and reports log-probabilities for OpenAI's {@code logprobs}.
     *
     * <p>They are the log-softmax of the logits after the penalties and before temperature and truncation: the
     * model's distribution as adjusted by the penalties the client asked for (vLLM's "processed" logprobs stop at
     * the same point except that they also apply temperature). Leaving temperature and top-k/top-p out keeps the
     * numbers comparable across requests and gives tokens outside the truncated support a finite value.
     *
     * @param topLogprobs how many of the most likely tokens to list, in {@code [0, vocabularySize]}
     */
    public SampledToken sampleWithLogprobs(float[] logits, TokenHistory history, int topLogprobs) {
        if (topLogprobs < 0 || topLogprobs > vocabularySize) {
            throw new IllegalArgumentException(
                    "topLogprobs must be in [0, " + vocabularySize + "], got " + topLogprobs);
        }
        int argmax = prepare(logits, history);
        int token = choose(logits, argmax);
        float max = logits[argmax];
        double sum = 0;
        for (float logit : logits) {
            sum += Math.exp(logit - max);
        }
        float logNormalizer = (float) (max + Math.log(sum));
        List<TokenLogprob> top = new ArrayList<>(topLogprobs);
        int count = TopTokens.select(logits, topLogprobs, keys(topLogprobs));
        for (int i = 0; i < count; i++) {
            int id = TopTokens.id(keys[i]);
            top.add(new TokenLogprob(id, logits[id] - logNormalizer));
        }
        return new SampledToken(token, logits[token] - logNormalizer, top);
    }

    /** Checks the inputs, applies the logit bias and the penalties, and returns the argmax of the result. */
    private int prepare(float[] logits, TokenHistory history) {
        Objects.requireNonNull(logits, "logits");
        Objects.requireNonNull(history, "history");
        if (logits.length != vocabularySize) {
            throw new IllegalArgumentException(
                    "expected " + vocabularySize + " logits (the vocabulary size), got " + logits.length);
        }
        params.logitBias().forEach((token, bias) -> {
            if (token < logits.length) {
                logits[token] += bias.floatValue();
            }
        });
        if (penalties != null) {
            penalties.apply(logits, history);
        }
        int best = -1;
        float bestValue = Float.NEGATIVE_INFINITY;
        for (int i = 0; i < logits.length; i++) {
            float logit = logits[i];
            if (logit > bestValue) {
                if (logit == Float.POSITIVE_INFINITY) {
                    throw new IllegalArgumentException("logit of token " + i + " is +Infinity");
                }
                best = i;
                bestValue = logit;
            } else if (logit != logit) {
                throw new IllegalArgumentException("logit of token " + i + " is NaN");
            }
        }
        if (best < 0) {
            throw new IllegalArgumentException("every logit is -Infinity: no token can be sampled");
        }
        return best;
    }

    private int choose(float[] logits, int argmax) {
        if (params.isGreedy()) {
            return argmax;
        }
        float max = logits[argmax];
        // Candidates: the whole vocabulary (ids unused) or ids[0..count), which always contains the argmax.
        boolean whole = true;
        int count = vocabularySize;
        if (params.topK() > 0 && params.topK() < vocabularySize) {
            count = TopTokens.select(logits, params.topK(), keys(params.topK()));
            copyIdsFromKeys(count);
            whole = false;
        }
        if (params.topP() < 1) {
            count = whole ? nucleusOfVocabulary(logits, max) : nucleusOfCandidates(logits, count, max);
            whole = false;
        }
        if (params.minP() > 0) {
            float threshold = max + (float) Math.log(params.minP());
            count = whole ? vocabularyAbove(logits, threshold) : candidatesAbove(logits, count, threshold);
            whole = false;
        }
        return draw(logits, whole, count, max);
    }

    /** Top-p over ids[0..count), sorted by descending logit; probabilities are relative to these candidates. */
    private int nucleusOfCandidates(float[] logits, int count, float max) {
        double total = 0;
        for (int i = 0; i < count; i++) {
            total += Math.exp(logits[ids[i]] - max);
        }
        return nucleusSize(logits, count, max, total);
    }

    /**
     * Top-p over the whole vocabulary: select the best m tokens, and if their mass is short of {@code topP}, retry
     * with 4m. Probabilities are relative to the whole vocabulary.
     */
    private int nucleusOfVocabulary(float[] logits, float max) {
        double total = 0;
        for (float logit : logits) {
            total += Math.exp(logit - max);
        }
        int guess = Math.min(FIRST_NUCLEUS_GUESS, vocabularySize);
        while (true) {
            int count = TopTokens.select(logits, guess, keys(guess));
            copyIdsFromKeys(count);
            int size = nucleusSize(logits, count, max, total);
            if (size < count || count == vocabularySize) {
                return size;
            }
            guess = (int) Math.min(vocabularySize, 4L * guess);
        }
    }

    /**
     * The smallest prefix of ids[0..count) whose mass reaches {@code topP * total}, or {@code count} if the whole
     * prefix falls short (the caller then decides whether to look further).
     */
    private int nucleusSize(float[] logits, int count, float max, double total) {
        double target = params.topP() * total;
        double cumulative = 0;
        for (int i = 0; i < count; i++) {
            cumulative += Math.exp(logits[ids[i]] - max);
            if (cumulative >= target) {
                return i + 1;
            }
        }
        return count;
    }

    private int vocabularyAbove(float[] logits, float threshold) {
        int count = 0;
        for (int i = 0; i < logits.length; i++) {
            if (logits[i] >= threshold) {
                ids(count + 1)[count++] = i;
            }
        }
        return count;
    }

    private int candidatesAbove(float[] logits, int count, float threshold) {
        int kept = 0;
        for (int i = 0; i < count; i++) {
            int id = ids[i];
            if (logits[id] >= threshold) {
                ids[kept++] = id;
            }
        }
        return kept;
    }

    /**
     * Draws from softmax(logit / temperature) over the candidates. A logit equal to the maximum weighs exactly 1,
     * whatever the temperature: for a temperature so small that its inverse is +Infinity (4.9e-324), 0 times it
     * would be NaN, no candidate would weigh anything, and no token could be drawn.
     */
    private int draw(float[] logits, boolean whole, int count, float max) {
        double inverseTemperature = 1.0 / params.temperature();
        float[] w = weights(count);
        double total = 0;
        for (int i = 0; i < count; i++) {
            float below = logits[whole ? i : ids[i]] - max;
            w[i] = below == 0 ? 1f : (float) Math.exp(below * inverseTemperature);
            total += w[i];
        }
        double target = random.nextDouble() * total;
        double cumulative = 0;
        int lastPositive = -1;
        for (int i = 0; i < count; i++) {
            if (w[i] > 0) {
                cumulative += w[i];
                lastPositive = i;
                if (target < cumulative) {
                    break;
                }
            }
        }
        // lastPositive >= 0: the argmax is always a candidate and has weight exp(0) = 1.
        return whole ? lastPositive : ids[lastPositive];
    }

    private void copyIdsFromKeys(int count) {
        int[] dest = ids(count);
        for (int i = 0; i < count; i++) {
            dest[i] = TopTokens.id(keys[i]);
        }
    }

    private long[] keys(int size) {
        if (keys.length < size) {
            keys = new long[grow(keys.length, size)];
        }
        return keys;
    }

    private int[] ids(int size) {
        if (ids.length < size) {
            ids = Arrays.copyOf(ids, grow(ids.length, size));
        }
        return ids;
    }

    private float[] weights(int size) {
        if (weights.length < size) {
            weights = new float[grow(weights.length, size)];
        }
        return weights;
    }

    private int grow(int current, int needed) {
        return (int) Math.min(vocabularySize, Math.max(needed, 2L * current));
    }
}

package io.squall.functions.engine.model;

import io.squall.kernels.Kernels;
import io.squall.kernels.PagedKv;
import io.squall.kernels.WeightMatrix;
import io.squall.kernels.custom.CustomKernel;
import io.squall.kvgrid.pool.KvLayout;

import java.util.Arrays;
import java.util.List;

/**
 * The forward pass of a llama-family decoder. One call runs a batch of rows drawn from one or more
 * sequences: every matmul reads each weight once for all rows, while attention runs per sequence over
 * its own {@link KvCache}. A prompt prefill is one long segment; a continuous-batching decode step is
 * one single-token segment per running sequence.
 *
 * <p>Not thread-safe: scratch buffers are reused across calls.
 */
public final class Transformer implements ForwardPass {

    private final ModelConfig config;
    private final ModelWeights weights;
    private final Kernels kernels;
    private final int maxPositions;
    private final RopeTables rope;
    private final boolean neox;
    private final WeightMatrix[][] qkv;
    private final WeightMatrix[][] gateUp;
    private final float attentionScale;

    private int capacity;
    private int[] positions;
    private float[] x;
    private float[] xb;
    private float[] q;
    private float[] k;
    private float[] v;
    private float[] attended;
    /** Per segment of the current pass: its layer's KV, rows and first position (grown with the row capacity). */
    private PagedKv[] segmentKv;
    private int[] segmentRows;
    private int[] segmentStart;
    private float[] gate;
    private float[] up;
    private float[][] qkvOut;
    private float[][] gateUpOut;
    private float[] logitRows;
    private float[] logitHidden;
    /** The gated FFN's activation, or null for SiLU. */
    private CustomKernel activation;
    private CustomKernel logitsTransform;
    private float[] logitsConstants = new float[0];
    /** {@link #logitsConstants} repeated for each logits row, the transform's second array. */
    private float[] logitsConstantRows = new float[0];

    /**
     * @param maxPositions the longest sequence to support, in tokens; capped at the model's context
     */
    public Transformer(ModelConfig config, ModelWeights weights, Kernels kernels, int maxPositions) {
        this.config = config;
        this.weights = weights;
        this.kernels = kernels;
        this.maxPositions = Math.min(maxPositions, config.contextLength());
        this.rope = new RopeTables(config, weights.ropeFrequencyFactors(), this.maxPositions);
        this.neox = config.architecture().ropeStyle() == Architecture.RopeStyle.NEOX;
        this.qkv = new WeightMatrix[config.layers()][];
        this.gateUp = new WeightMatrix[config.layers()][];
        for (int l = 0; l < config.layers(); l++) {
            ModelWeights.Layer layer = weights.layers().get(l);
            qkv[l] = new WeightMatrix[] {layer.attention().wq(), layer.attention().wk(), layer.attention().wv()};
            gateUp[l] = new WeightMatrix[] {layer.feedForward().gate(), layer.feedForward().up()};
        }
        this.attentionScale = (float) (1.0 / Math.sqrt(config.headDim()));
        kernels.prepare(weights.matrices()); // a device executor uploads them once, here
    }

    /**
     * Replaces SiLU in the gated feed-forward block with a user's kernel, run on the active executor:
     * it gets the gate projections as {@code x} and the up projections as {@code y}, and leaves
     * {@code activation(gate)·up} in {@code x}. {@code null} restores SiLU.
     */
    public void setActivation(CustomKernel activation) {
        this.activation = activation;
    }

    /**
     * Runs a user's kernel over the logits before they are handed out (and so before sampling), on the
     * active executor: {@code x} holds the logits, {@code y} the matching entry of {@code perToken}
     * (one float per vocabulary entry: a bias, a cap, a mask). {@code null} removes it.
     *
     * @throws IllegalArgumentException if {@code perToken} does not hold one float per vocabulary entry
     */
    public void setLogitsTransform(CustomKernel transform, float[] perToken) {
        if (transform != null && (perToken == null || perToken.length != config.vocabSize())) {
            throw new IllegalArgumentException("a logits transform needs one constant per vocabulary entry ("
                    + config.vocabSize() + ")");
        }
        this.logitsTransform = transform;
        this.logitsConstants = transform == null ? new float[0] : perToken.clone();
        this.logitsConstantRows = new float[0];
    }

    public ModelConfig config() {
        return config;
    }

    @Override
    public int vocabSize() {
        return config.vocabSize();
    }

    /** The longest sequence this transformer runs, in tokens. */
    @Override
    public int maxPositions() {
        return maxPositions;
    }

    @Override
    public KvLayout kvLayout(int blockSize) {
        return config.kvLayout(blockSize);
    }

    /** A new, empty cache for one sequence. */
    public KvCache newCache() {
        return new ContiguousKvCache(config.layers(), config.kvDim(), maxPositions);
    }

    /**
     * A new, empty cache for one sequence with its memory for {@code positions} tokens allocated now, as llama.cpp
     * allocates its KV cache with the context: a generation of known length then neither allocates nor copies its
     * keys and values as it grows.
     *
     * @throws IllegalArgumentException if {@code positions} exceeds the context
     */
    public KvCache newCache(int positions) {
        KvCache cache = newCache();
        cache.reserve(positions);
        return cache;
    }

    /** Computes {@code segments}, writing their keys and values into their caches. */
    @Override
    public void forward(List<Segment> segments) {
        int rows = ForwardPass.checkSegments(segments, config.vocabSize(), maxPositions);
        ensureCapacity(rows);
        int dim = config.dim();
        int row = 0;
        for (Segment segment : segments) {
            segment.cache().reserve(segment.cache().length() + segment.count());
            for (int j = 0; j < segment.count(); j++, row++) {
                positions[row] = segment.cache().length() + j;
                kernels.dequantizeRow(weights.tokenEmbedding(), segment.tokens()[segment.offset() + j], x, row * dim);
            }
        }
        for (int l = 0; l < config.layers(); l++) {
            attentionBlock(l, segments, rows);
            feedForwardBlock(l, rows);
        }
        for (Segment segment : segments) {
            segment.cache().advance(segment.count());
        }
        logits(segments);
    }

    private void attentionBlock(int l, List<Segment> segments, int rows) {
        ModelWeights.Attention attention = weights.layers().get(l).attention();
        int dim = config.dim();
        int kvDim = config.kvDim();
        int qDim = config.qDim();
        int headDim = config.headDim();
        kernels.rmsnorm(xb, x, attention.norm(), rows, dim, config.rmsEps());
        kernels.matmulMany(qkv[l], xb, qkvOut, rows);
        if (attention.bias() != null) {
            kernels.addBias(q, attention.bias().q(), rows, qDim);
            kernels.addBias(k, attention.bias().k(), rows, kvDim);
            kernels.addBias(v, attention.bias().v(), rows, kvDim);
        }
        if (attention.qkNorm() != null) {
            kernels.rmsnorm(q, q, attention.qkNorm().q(), rows * config.heads(), headDim, config.rmsEps());
            kernels.rmsnorm(k, k, attention.qkNorm().k(), rows * config.kvHeads(), headDim, config.rmsEps());
        }
        kernels.rope(q, rows, positions, config.heads(), headDim, config.ropeDim(), rope.cos, rope.sin, neox);
        kernels.rope(k, rows, positions, config.kvHeads(), headDim, config.ropeDim(), rope.cos, rope.sin, neox);

        int row = 0;
        int sequences = segments.size();
        for (int s = 0; s < sequences; s++) {
            Segment segment = segments.get(s);
            KvCache cache = segment.cache();
            cache.store(l, k, row * kvDim, v, row * kvDim, segment.count());
            segmentKv[s] = cache.layer(l);
            segmentRows[s] = segment.count();
            segmentStart[s] = cache.length();
            row += segment.count();
        }
        // Every sequence of the step in one parallel loop: a decode step's sequences have one row each.
        kernels.attention(q, attended, segmentKv, segmentRows, segmentStart, sequences, config.heads(),
                config.kvHeads(), headDim, attentionScale);
        Arrays.fill(segmentKv, 0, sequences, null);
        kernels.matmul(attention.wo(), attended, xb, rows);
        kernels.add(x, xb, rows * dim);
    }

    private void feedForwardBlock(int l, int rows) {
        ModelWeights.FeedForward ffn = weights.layers().get(l).feedForward();
        int dim = config.dim();
        kernels.rmsnorm(xb, x, ffn.norm(), rows, dim, config.rmsEps());
        kernels.matmulMany(gateUp[l], xb, gateUpOut, rows);
        if (activation == null) {
            kernels.siluMul(gate, up, rows * config.ffnDim());
        } else {
            kernels.run(activation, gate, up, rows * config.ffnDim());
        }
        kernels.matmul(ffn.down(), gate, xb, rows);
        kernels.add(x, xb, rows * dim);
    }

    private void logits(List<Segment> segments) {
        int dim = config.dim();
        int vocab = config.vocabSize();
        int wanted = 0;
        int row = 0;
        for (Segment segment : segments) {
            row += segment.count();
            if (segment.logits() != null) {
                System.arraycopy(x, (row - 1) * dim, logitHidden, wanted * dim, dim);
                wanted++;
            }
        }
        if (wanted == 0) {
            return;
        }
        kernels.rmsnorm(logitHidden, logitHidden, weights.outputNorm(), wanted, dim, config.rmsEps());
        if (logitRows.length < wanted * vocab) {
            logitRows = new float[wanted * vocab];
        }
        kernels.matmul(weights.output(), logitHidden, logitRows, wanted);
        if (logitsTransform != null) {
            if (logitsConstantRows.length < wanted * vocab) {
                logitsConstantRows = new float[logitRows.length];
                for (int r = 0; r + vocab <= logitsConstantRows.length; r += vocab) {
                    System.arraycopy(logitsConstants, 0, logitsConstantRows, r, vocab);
                }
            }
            kernels.run(logitsTransform, logitRows, logitsConstantRows, wanted * vocab);
        }
        int i = 0;
        for (Segment segment : segments) {
            if (segment.logits() != null) {
                System.arraycopy(logitRows, i++ * vocab, segment.logits(), 0, vocab);
            }
        }
    }

    private void ensureCapacity(int rows) {
        if (rows <= capacity) {
            return;
        }
        int dim = config.dim();
        positions = new int[rows];
        x = new float[rows * dim];
        xb = new float[rows * dim];
        q = new float[rows * config.qDim()];
        k = new float[rows * config.kvDim()];
        v = new float[rows * config.kvDim()];
        attended = new float[rows * config.qDim()];
        segmentKv = new PagedKv[rows];
        segmentRows = new int[rows];
        segmentStart = new int[rows];
        gate = new float[rows * config.ffnDim()];
        up = new float[rows * config.ffnDim()];
        qkvOut = new float[][] {q, k, v};
        gateUpOut = new float[][] {gate, up};
        logitHidden = new float[rows * dim];
        logitRows = new float[config.vocabSize()];
        capacity = rows;
    }
}

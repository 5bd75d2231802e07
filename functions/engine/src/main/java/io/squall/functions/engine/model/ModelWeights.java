package io.squall.functions.engine.model;

import io.squall.kernels.WeightMatrix;

import java.util.ArrayList;
import java.util.List;

/**
 * Every weight of a transformer. Matrices are slices of the memory-mapped model file; the small
 * vectors (norms, biases, rope factors) are copied to {@code float[]}.
 *
 * @param tokenEmbedding {@code vocab × dim}
 * @param layers one entry per transformer block
 * @param outputNorm final RMS norm, {@code dim}
 * @param output the LM head, {@code vocab × dim}; the token embedding itself when the model ties them
 * @param ropeFrequencyFactors per-frequency divisors of Llama 3 rope scaling ({@code ropeDim/2}), or {@code null}
 */
public record ModelWeights(WeightMatrix tokenEmbedding, List<Layer> layers, float[] outputNorm, WeightMatrix output,
                           float[] ropeFrequencyFactors) {

    public ModelWeights {
        layers = List.copyOf(layers);
    }

    /**
     * Every matrix a forward pass multiplies by, in its order: per layer {@code wq, wk, wv, wo, gate, up, down}, then
     * the LM head (what {@link io.squall.kernels.Kernels#prepare} is given).
     */
    public List<WeightMatrix> matrices() {
        List<WeightMatrix> matrices = new ArrayList<>(7 * layers.size() + 1);
        for (Layer layer : layers) {
            Attention a = layer.attention();
            FeedForward f = layer.feedForward();
            matrices.addAll(List.of(a.wq(), a.wk(), a.wv(), a.wo(), f.gate(), f.up(), f.down()));
        }
        matrices.add(output);
        return matrices;
    }

    /** One transformer block. */
    public record Layer(Attention attention, FeedForward feedForward) {
    }

    /**
     * Self-attention weights.
     *
     * @param norm pre-attention RMS norm, {@code dim}
     * @param wq {@code qDim × dim}
     * @param wk {@code kvDim × dim}
     * @param wv {@code kvDim × dim}
     * @param wo {@code dim × qDim}
     * @param bias Q/K/V biases (qwen2), or {@code null}
     * @param qkNorm per-head Q/K RMS norms (qwen3), or {@code null}
     */
    public record Attention(float[] norm, WeightMatrix wq, WeightMatrix wk, WeightMatrix wv, WeightMatrix wo,
                            QkvBias bias, QkNorm qkNorm) {
    }

    /** Biases added after the Q, K and V projections. */
    public record QkvBias(float[] q, float[] k, float[] v) {
    }

    /** RMS norm weights applied to each query and key head, {@code headDim} each. */
    public record QkNorm(float[] q, float[] k) {
    }

    /**
     * SwiGLU feed-forward weights: {@code down(silu(gate·x) ⊙ up·x)}.
     *
     * @param norm pre-FFN RMS norm, {@code dim}
     * @param gate {@code ffn × dim}
     * @param up {@code ffn × dim}
     * @param down {@code dim × ffn}
     */
    public record FeedForward(float[] norm, WeightMatrix gate, WeightMatrix up, WeightMatrix down) {
    }
}

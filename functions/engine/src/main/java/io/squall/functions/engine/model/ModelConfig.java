package io.squall.functions.engine.model;

import io.squall.functions.engine.gguf.GgufMetadata;
import io.squall.kvgrid.pool.KvElementType;
import io.squall.kvgrid.pool.KvLayout;

/**
 * The shape of a transformer, read from GGUF metadata ({@code <arch>.embedding_length} and friends).
 *
 * @param architecture the model family
 * @param dim embedding width (model dimension)
 * @param layers number of transformer blocks
 * @param heads query heads
 * @param kvHeads key/value heads; {@code heads} is a multiple of it (grouped-query attention)
 * @param headDim width of one attention head
 * @param ffnDim hidden width of the feed-forward block
 * @param vocabSize tokens in the vocabulary (rows of the embedding)
 * @param contextLength the context the model was trained for, in tokens
 * @param rmsEps epsilon of the RMS norms
 * @param ropeTheta rope base frequency
 * @param ropeDim dimensions of each head that rotate (the first {@code ropeDim})
 * @param ropePositionScale positions are multiplied by this before rotating (linear rope scaling; 1 if none)
 */
public record ModelConfig(Architecture architecture, int dim, int layers, int heads, int kvHeads, int headDim,
                          int ffnDim, int vocabSize, int contextLength, float rmsEps, float ropeTheta, int ropeDim,
                          float ropePositionScale) {

    public ModelConfig {
        positive("dim", dim);
        positive("layers", layers);
        positive("heads", heads);
        positive("kvHeads", kvHeads);
        positive("headDim", headDim);
        positive("ffnDim", ffnDim);
        positive("vocabSize", vocabSize);
        positive("contextLength", contextLength);
        if (heads % kvHeads != 0) {
            throw new IllegalArgumentException("heads (" + heads + ") must be a multiple of kvHeads (" + kvHeads + ")");
        }
        if (ropeDim <= 0 || ropeDim > headDim || ropeDim % 2 != 0) {
            throw new IllegalArgumentException("rope dimension " + ropeDim + " must be even and at most the head width " + headDim);
        }
    }

    /** Width of all query heads together. */
    public int qDim() {
        return heads * headDim;
    }

    /** Width of all key (or value) heads together. */
    public int kvDim() {
        return kvHeads * headDim;
    }

    /** The KV page of this model: F32 keys and values of every layer's KV heads, {@code blockSize} tokens per page. */
    public KvLayout kvLayout(int blockSize) {
        return new KvLayout(layers, kvHeads, headDim, blockSize, KvElementType.F32);
    }

    /**
     * Reads the configuration of {@code architecture} from {@code metadata}; {@code vocabSize} comes
     * from the embedding tensor.
     *
     * @throws IllegalArgumentException naming the key when a required one is missing or malformed
     */
    public static ModelConfig fromGguf(GgufMetadata metadata, Architecture architecture, int vocabSize) {
        String p = architecture.ggufName() + ".";
        int dim = metadata.getInt(p + "embedding_length");
        int heads = metadata.getInt(p + "attention.head_count");
        int headDim = metadata.getInt(p + "attention.key_length", dim / heads);
        int ropeDim = metadata.getInt(p + "rope.dimension_count", headDim);
        float positionScale = 1f;
        String scaling = metadata.findString(p + "rope.scaling.type").orElse("none");
        switch (scaling) {
            case "none" -> { }
            case "linear" -> positionScale = 1f / metadata.getFloat(p + "rope.scaling.factor", 1f);
            default -> throw new IllegalArgumentException("rope scaling '" + scaling + "' is not supported (none, linear, "
                    + "and Llama 3 frequency factors are)");
        }
        return new ModelConfig(
                architecture,
                dim,
                metadata.getInt(p + "block_count"),
                heads,
                metadata.getInt(p + "attention.head_count_kv", heads),
                headDim,
                metadata.getInt(p + "feed_forward_length"),
                vocabSize,
                metadata.getInt(p + "context_length", 2048),
                metadata.getFloat(p + "attention.layer_norm_rms_epsilon", 1e-5f),
                metadata.getFloat(p + "rope.freq_base", 10000f),
                ropeDim,
                positionScale);
    }

    private static void positive(String name, int value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
    }
}

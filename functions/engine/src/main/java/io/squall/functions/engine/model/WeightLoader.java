package io.squall.functions.engine.model;

import io.squall.functions.engine.gguf.GgufFile;
import io.squall.functions.engine.gguf.GgufTensor;
import io.squall.kernels.GgmlType;
import io.squall.kernels.WeightMatrix;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Builds {@link ModelWeights} from a GGUF file's tensors (llama.cpp's names: {@code token_embd},
 * {@code blk.N.attn_q}, …), checking every shape against the {@link ModelConfig}. Matrices stay in the
 * mapping; nothing large is copied.
 */
final class WeightLoader {

    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort F16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final GgufFile file;
    private final ModelConfig config;

    WeightLoader(GgufFile file, ModelConfig config) {
        this.file = file;
        this.config = config;
    }

    ModelWeights load() {
        int dim = config.dim();
        WeightMatrix embedding = matrix("token_embd.weight", config.vocabSize(), dim);
        WeightMatrix output = file.tensor("output.weight").isPresent()
                ? matrix("output.weight", config.vocabSize(), dim)
                : embedding;
        List<ModelWeights.Layer> layers = new ArrayList<>(config.layers());
        for (int i = 0; i < config.layers(); i++) {
            layers.add(layer(i));
        }
        float[] ropeFactors = optionalVector("rope_freqs.weight", config.ropeDim() / 2).orElse(null);
        return new ModelWeights(embedding, layers, vector("output_norm.weight", dim), output, ropeFactors);
    }

    private ModelWeights.Layer layer(int i) {
        String p = "blk." + i + ".";
        int dim = config.dim();
        ModelWeights.QkvBias bias = config.architecture().hasQkvBias()
                ? new ModelWeights.QkvBias(vector(p + "attn_q.bias", config.qDim()),
                        vector(p + "attn_k.bias", config.kvDim()), vector(p + "attn_v.bias", config.kvDim()))
                : null;
        ModelWeights.QkNorm qkNorm = config.architecture().hasQkNorm()
                ? new ModelWeights.QkNorm(vector(p + "attn_q_norm.weight", config.headDim()),
                        vector(p + "attn_k_norm.weight", config.headDim()))
                : null;
        ModelWeights.Attention attention = new ModelWeights.Attention(
                vector(p + "attn_norm.weight", dim),
                matrix(p + "attn_q.weight", config.qDim(), dim),
                matrix(p + "attn_k.weight", config.kvDim(), dim),
                matrix(p + "attn_v.weight", config.kvDim(), dim),
                matrix(p + "attn_output.weight", dim, config.qDim()),
                bias, qkNorm);
        ModelWeights.FeedForward feedForward = new ModelWeights.FeedForward(
                vector(p + "ffn_norm.weight", dim),
                matrix(p + "ffn_gate.weight", config.ffnDim(), dim),
                matrix(p + "ffn_up.weight", config.ffnDim(), dim),
                matrix(p + "ffn_down.weight", dim, config.ffnDim()));
        return new ModelWeights.Layer(attention, feedForward);
    }

    private GgufTensor require(String name) {
        return file.tensor(name).orElseThrow(() -> new IllegalArgumentException(
                file.path() + ": tensor '" + name + "' is missing"));
    }

    private WeightMatrix matrix(String name, int rows, int cols) {
        GgufTensor tensor = require(name);
        if (tensor.rank() != 2 || tensor.dim(0) != cols || tensor.dim(1) != rows) {
            throw new IllegalArgumentException(file.path() + ": tensor '" + name + "' has shape "
                    + java.util.Arrays.toString(tensor.dims()) + ", expected [" + cols + ", " + rows + "]");
        }
        if (!tensor.type().isMatmulSupported()) {
            throw new IllegalArgumentException(file.path() + ": tensor '" + name + "' is stored as " + tensor.type()
                    + ", which Squall cannot compute with (supported: " + GgmlType.supportedNames() + ")");
        }
        return new WeightMatrix(name, tensor.type(), rows, cols, file.tensorData(tensor));
    }

    private float[] vector(String name, int length) {
        return optionalVector(name, length).orElseThrow(() -> new IllegalArgumentException(
                file.path() + ": tensor '" + name + "' is missing"));
    }

    private Optional<float[]> optionalVector(String name, int length) {
        Optional<GgufTensor> found = file.tensor(name);
        if (found.isEmpty()) {
            return Optional.empty();
        }
        GgufTensor tensor = found.get();
        if (tensor.elementCount() != length) {
            throw new IllegalArgumentException(file.path() + ": tensor '" + name + "' has " + tensor.elementCount()
                    + " elements, expected " + length);
        }
        MemorySegment data = file.tensorData(tensor);
        float[] values = new float[length];
        for (int i = 0; i < length; i++) {
            values[i] = switch (tensor.type()) {
                case F32 -> data.getAtIndex(F32, i);
                case F16 -> Float.float16ToFloat(data.getAtIndex(F16, i));
                case BF16 -> Float.intBitsToFloat(data.getAtIndex(F16, i) << 16);
                default -> throw new IllegalArgumentException(file.path() + ": vector tensor '" + name + "' is stored as "
                        + tensor.type() + "; expected F32, F16 or BF16");
            };
        }
        return Optional.of(values);
    }

    /** The vocabulary size: rows of the token embedding. */
    static int vocabSize(GgufFile file) {
        GgufTensor embedding = file.tensor("token_embd.weight").orElseThrow(() -> new IllegalArgumentException(
                file.path() + ": tensor 'token_embd.weight' is missing"));
        long rows = embedding.dim(1);
        if (embedding.rank() != 2 || rows > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(file.path() + ": token_embd.weight has an unusable shape "
                    + java.util.Arrays.toString(embedding.dims()));
        }
        return (int) rows;
    }
}

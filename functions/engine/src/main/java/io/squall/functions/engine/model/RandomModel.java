package io.squall.functions.engine.model;

import io.squall.functions.engine.gguf.GgufFile;
import io.squall.functions.engine.gguf.GgufMetadata;
import io.squall.functions.engine.gguf.GgufValue;
import io.squall.functions.engine.gguf.GgufWriter;
import io.squall.kernels.GgmlType;
import io.squall.kernels.format.GgmlCodec;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * Writes GGUF models with random weights (normal, standard deviation 0.02; norms 1) in any supported
 * architecture and format: for tests, benchmarks and the demo model. The vocabulary and chat template
 * are copied from another GGUF file, or a built-in byte-level one is used. Files say what they are:
 * {@code general.name} starts with {@code "random-"} and {@code general.description} says the weights
 * are random. The same spec and seed give the same file.
 */
public final class RandomModel {

    /** Standard deviation of the random weights, as in the reference models. */
    static final double WEIGHT_STD = 0.02;

    /**
     * What to generate.
     *
     * @param architecture the model family
     * @param shape dimensions of the transformer
     * @param type storage format of the 2-D weights (norms stay F32)
     * @param vocabFrom a GGUF file whose {@code tokenizer.*} metadata to copy, or {@code null} for the built-in one
     * @param seed seed of the weights
     */
    public record Spec(Architecture architecture, Shape shape, GgmlType type, Path vocabFrom, long seed) {
        public Spec {
            Objects.requireNonNull(architecture, "architecture");
            Objects.requireNonNull(shape, "shape");
            Objects.requireNonNull(type, "type");
            if (!type.isMatmulSupported()) {
                throw new IllegalArgumentException("cannot generate weights of type " + type);
            }
        }
    }

    /**
     * Transformer dimensions.
     *
     * @param dim model width
     * @param layers transformer blocks
     * @param heads query heads
     * @param kvHeads key/value heads, dividing {@code heads}
     * @param ffn feed-forward width
     * @param contextLength trained context to record, in tokens
     */
    public record Shape(int dim, int layers, int heads, int kvHeads, int ffn, int contextLength) {
        public Shape {
            if (dim <= 0 || layers <= 0 || heads <= 0 || kvHeads <= 0 || ffn <= 0 || contextLength <= 0) {
                throw new IllegalArgumentException("dimensions must be positive: " + this);
            }
            if (dim % heads != 0) {
                throw new IllegalArgumentException("dim " + dim + " must be a multiple of heads " + heads);
            }
            if (heads % kvHeads != 0) {
                throw new IllegalArgumentException("heads " + heads + " must be a multiple of kv-heads " + kvHeads);
            }
            if ((dim / heads) % 2 != 0) {
                throw new IllegalArgumentException("head width " + (dim / heads) + " must be even for rope");
            }
        }
    }

    private RandomModel() {
    }

    /** Writes the model described by {@code spec} to {@code out}. */
    public static void write(Spec spec, Path out) {
        Shape s = spec.shape();
        GgmlType type = spec.type();
        for (int cols : new int[] {s.dim(), s.ffn()}) {
            if (cols % type.blockSize() != 0) {
                throw new IllegalArgumentException(type + " stores rows in blocks of " + type.blockSize()
                        + " elements; dim and ffn must be multiples of it (got " + cols + ")");
            }
        }
        GgufWriter writer = new GgufWriter();
        int vocabSize = putVocabulary(writer, spec.vocabFrom());
        putHyperparameters(writer, spec, vocabSize);

        String arch = spec.architecture().ggufName();
        int headDim = s.dim() / s.heads();
        int qDim = s.heads() * headDim;
        int kvDim = s.kvHeads() * headDim;
        long seed = spec.seed();
        int index = 0;
        writer.addTensor("token_embd.weight", type, new long[] {s.dim(), vocabSize}, random(type, s.dim(), seed, index++));
        writer.addTensor("output_norm.weight", GgmlType.F32, new long[] {s.dim()}, ones());
        writer.addTensor("output.weight", type, new long[] {s.dim(), vocabSize}, random(type, s.dim(), seed, index++));
        for (int l = 0; l < s.layers(); l++) {
            String p = "blk." + l + ".";
            writer.addTensor(p + "attn_norm.weight", GgmlType.F32, new long[] {s.dim()}, ones());
            writer.addTensor(p + "attn_q.weight", type, new long[] {s.dim(), qDim}, random(type, s.dim(), seed, index++));
            writer.addTensor(p + "attn_k.weight", type, new long[] {s.dim(), kvDim}, random(type, s.dim(), seed, index++));
            writer.addTensor(p + "attn_v.weight", type, new long[] {s.dim(), kvDim}, random(type, s.dim(), seed, index++));
            writer.addTensor(p + "attn_output.weight", type, new long[] {qDim, s.dim()}, random(type, qDim, seed, index++));
            if (spec.architecture().hasQkvBias()) {
                writer.addTensor(p + "attn_q.bias", GgmlType.F32, new long[] {qDim}, random(GgmlType.F32, qDim, seed, index++));
                writer.addTensor(p + "attn_k.bias", GgmlType.F32, new long[] {kvDim}, random(GgmlType.F32, kvDim, seed, index++));
                writer.addTensor(p + "attn_v.bias", GgmlType.F32, new long[] {kvDim}, random(GgmlType.F32, kvDim, seed, index++));
            }
            if (spec.architecture().hasQkNorm()) {
                writer.addTensor(p + "attn_q_norm.weight", GgmlType.F32, new long[] {headDim}, ones());
                writer.addTensor(p + "attn_k_norm.weight", GgmlType.F32, new long[] {headDim}, ones());
            }
            writer.addTensor(p + "ffn_norm.weight", GgmlType.F32, new long[] {s.dim()}, ones());
            writer.addTensor(p + "ffn_gate.weight", type, new long[] {s.dim(), s.ffn()}, random(type, s.dim(), seed, index++));
            writer.addTensor(p + "ffn_up.weight", type, new long[] {s.dim(), s.ffn()}, random(type, s.dim(), seed, index++));
            writer.addTensor(p + "ffn_down.weight", type, new long[] {s.ffn(), s.dim()}, random(type, s.ffn(), seed, index++));
        }
        writer.put("general.file_type", GgufValue.ofUint32(fileType(type)));
        writer.put(arch + ".vocab_size", GgufValue.ofUint32(vocabSize));
        writer.write(out);
    }

    private static void putHyperparameters(GgufWriter writer, Spec spec, int vocabSize) {
        Shape s = spec.shape();
        Architecture architecture = spec.architecture();
        String arch = architecture.ggufName();
        boolean qwen = architecture == Architecture.QWEN2 || architecture == Architecture.QWEN3;
        writer.put("general.architecture", GgufValue.ofString(arch));
        writer.put("general.name", GgufValue.ofString("random-" + arch + "-" + s.dim() + "d-" + s.layers() + "l-"
                + spec.type().name().toLowerCase(java.util.Locale.ROOT)));
        writer.put("general.description", GgufValue.ofString("RANDOM WEIGHTS (seed " + spec.seed()
                + ", written by squall gen-model): produces meaningless text"));
        writer.put(arch + ".context_length", GgufValue.ofUint32(s.contextLength()));
        writer.put(arch + ".embedding_length", GgufValue.ofUint32(s.dim()));
        writer.put(arch + ".block_count", GgufValue.ofUint32(s.layers()));
        writer.put(arch + ".feed_forward_length", GgufValue.ofUint32(s.ffn()));
        writer.put(arch + ".attention.head_count", GgufValue.ofUint32(s.heads()));
        writer.put(arch + ".attention.head_count_kv", GgufValue.ofUint32(s.kvHeads()));
        writer.put(arch + ".attention.layer_norm_rms_epsilon", GgufValue.ofFloat32(qwen ? 1e-6f : 1e-5f));
        writer.put(arch + ".rope.freq_base", GgufValue.ofFloat32(qwen ? 1_000_000f : 10_000f));
        writer.put(arch + ".rope.dimension_count", GgufValue.ofUint32(s.dim() / s.heads()));
        if (architecture == Architecture.QWEN3) {
            writer.put(arch + ".attention.key_length", GgufValue.ofUint32(s.dim() / s.heads()));
            writer.put(arch + ".attention.value_length", GgufValue.ofUint32(s.dim() / s.heads()));
        }
    }

    /** Copies the tokenizer of {@code vocabFrom}, or writes the built-in one; returns the vocabulary size. */
    private static int putVocabulary(GgufWriter writer, Path vocabFrom) {
        if (vocabFrom == null) {
            GgufMetadata builtIn = ByteLevelVocabulary.metadata();
            builtIn.entries().forEach(writer::put);
            return builtIn.getStringArray("tokenizer.ggml.tokens").length;
        }
        try (GgufFile source = GgufFile.open(vocabFrom)) {
            GgufMetadata metadata = source.metadata();
            if (!metadata.contains("tokenizer.ggml.tokens")) {
                throw new IllegalArgumentException(vocabFrom + " has no tokenizer (tokenizer.ggml.tokens)");
            }
            metadata.entries().forEach((key, value) -> {
                if (key.startsWith("tokenizer.")) {
                    writer.put(key, value);
                }
            });
            return metadata.getStringArray("tokenizer.ggml.tokens").length;
        }
    }

    /** Fills a tensor with N(0, 0.02) weights, a row of {@code cols} at a time, encoded in {@code type}. */
    private static java.util.function.Consumer<MemorySegment> random(GgmlType type, int cols, long seed, int index) {
        return target -> {
            SplittableRandom random = new SplittableRandom(seed * 1_000_003L + index);
            long rowBytes = type.bytesFor(cols);
            long rows = target.byteSize() / rowBytes;
            float[] row = new float[cols];
            for (long r = 0; r < rows; r++) {
                for (int c = 0; c < cols; c++) {
                    row[c] = (float) (random.nextGaussian() * WEIGHT_STD);
                }
                GgmlCodec.quantize(type, row, 0, cols, target, r * rowBytes);
            }
        };
    }

    private static java.util.function.Consumer<MemorySegment> ones() {
        return target -> {
            float[] values = new float[(int) (target.byteSize() / Float.BYTES)];
            java.util.Arrays.fill(values, 1f);
            GgmlCodec.quantize(GgmlType.F32, values, 0, values.length, target, 0);
        };
    }

    /** llama.cpp's {@code general.file_type} for a model whose matrices are all {@code type}. */
    private static int fileType(GgmlType type) {
        return switch (type) {
            case F32 -> 0;
            case F16 -> 1;
            case Q4_0 -> 2;
            case Q4_1 -> 3;
            case Q8_0 -> 7;
            case Q5_0 -> 8;
            case Q5_1 -> 9;
            case Q2_K -> 10;
            case Q3_K -> 11; // Q3_K_S: every matrix Q3_K
            case Q4_K -> 15;
            case Q5_K -> 17;
            case Q6_K -> 18;
            case IQ4_NL -> 25;
            case IQ4_XS -> 30;
            case BF16 -> 32;
            default -> throw new IllegalArgumentException("no file type for " + type);
        };
    }
}

package io.squall.functions.engine.gguf;

import io.squall.kernels.GgmlType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GgufFileTest {

    @TempDir
    Path dir;

    private Path writeSample(int alignment) {
        Path file = dir.resolve("sample-" + alignment + ".gguf");
        GgufWriter writer = new GgufWriter(alignment)
                .put("general.architecture", GgufValue.ofString("llama"))
                .put("llama.block_count", GgufValue.ofUint32(3))
                .put("llama.rope.freq_base", GgufValue.ofFloat32(10000f))
                .put("flag", GgufValue.ofBool(true))
                .put("i8", new GgufValue(GgufValueType.INT8, null, -5))
                .put("u16", new GgufValue(GgufValueType.UINT16, null, 65535))
                .put("i64", new GgufValue(GgufValueType.INT64, null, -7L))
                .put("f64", new GgufValue(GgufValueType.FLOAT64, null, 2.5))
                .put("tokens", GgufValue.ofStrings(new String[] {"<s>", "▁a", "é", ""}))
                .put("scores", GgufValue.ofFloats(new float[] {0f, -1.5f, 3f, 4f}))
                .put("types", GgufValue.ofInts(new int[] {3, 1, 1, 6}))
                .put("bytes", new GgufValue(GgufValueType.ARRAY, GgufValueType.UINT8, new byte[] {(byte) 200, 1}))
                .put("nested", new GgufValue(GgufValueType.ARRAY, GgufValueType.ARRAY,
                        new GgufValue[] {GgufValue.ofInts(new int[] {1, 2}), GgufValue.ofStrings(new String[] {"x"})}));
        writer.addTensor("a", GgmlType.F32, new long[] {3, 2}, seg -> {
            for (int i = 0; i < 6; i++) {
                seg.setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, i + 0.5f);
            }
        });
        writer.addTensor("b", GgmlType.Q8_0, new long[] {64}, seg -> seg.fill((byte) 7));
        writer.write(file);
        return file;
    }

    @Test
    void roundTripsMetadataAndTensors() {
        for (int alignment : new int[] {32, 64, 1}) {
            Path file = writeSample(alignment);
            try (GgufFile gguf = GgufFile.open(file)) {
                assertThat(gguf.version()).isEqualTo(3);
                GgufMetadata m = gguf.metadata();
                assertThat(m.getString("general.architecture")).isEqualTo("llama");
                assertThat(m.getInt("llama.block_count")).isEqualTo(3);
                assertThat(m.getFloat("llama.rope.freq_base")).isEqualTo(10000f);
                assertThat(m.getBoolean("flag", false)).isTrue();
                assertThat(m.getInt("i8")).isEqualTo(-5);
                assertThat(m.getInt("u16")).isEqualTo(65535);
                assertThat(m.getLong("i64")).isEqualTo(-7L);
                assertThat(m.getFloat("f64")).isEqualTo(2.5f);
                assertThat(m.getStringArray("tokens")).containsExactly("<s>", "▁a", "é", "");
                assertThat(m.getFloatArray("scores")).containsExactly(0f, -1.5f, 3f, 4f);
                assertThat(m.getIntArray("types")).containsExactly(3, 1, 1, 6);
                assertThat(m.getIntArray("bytes")).containsExactly(200, 1);
                assertThat(((GgufValue[]) m.get("nested"))[1].value()).isEqualTo(new String[] {"x"});
                assertThat(m.getInt("missing", 9)).isEqualTo(9);
                assertThatThrownBy(() -> m.getString("missing")).hasMessageContaining("'missing'");
                assertThatThrownBy(() -> m.getString("flag")).hasMessageContaining("expected a string");

                assertThat(gguf.tensors()).extracting(GgufTensor::name).containsExactly("a", "b");
                GgufTensor a = gguf.tensor("a").orElseThrow();
                assertThat(a.dims()).containsExactly(3, 2);
                assertThat(a.dataOffset() % alignment).isZero();
                MemorySegment data = gguf.tensorData(a);
                assertThat(data.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, 5)).isEqualTo(5.5f);
                GgufTensor b = gguf.tensor("b").orElseThrow();
                assertThat(b.byteSize()).isEqualTo(68);
                assertThat(gguf.tensorData(b).get(ValueLayout.JAVA_BYTE, 67)).isEqualTo((byte) 7);
            }
        }
    }

    @Test
    void everyTruncationGivesAGgufExceptionNamingFileAndOffset() throws IOException {
        Path sample = writeSample(32);
        byte[] whole = Files.readAllBytes(sample);
        long dataEnd;
        try (GgufFile gguf = GgufFile.open(sample)) {
            GgufTensor last = gguf.tensors().getLast();
            dataEnd = last.dataOffset() + last.byteSize(); // what follows is only alignment padding
        }
        Path cut = dir.resolve("cut.gguf");
        for (int length = 0; length < dataEnd; length++) {
            Files.write(cut, java.util.Arrays.copyOf(whole, length));
            final int len = length;
            assertThatThrownBy(() -> GgufFile.open(cut).close())
                    .as("truncated to %d bytes", len)
                    .isInstanceOf(GgufException.class)
                    .hasMessageStartingWith(cut.toString());
        }
    }

    @Test
    void corruptBytesNeverEscapeAsAnotherException() throws IOException {
        byte[] whole = Files.readAllBytes(writeSample(32));
        long seed = System.nanoTime();
        Random random = new Random(seed);
        Path bad = dir.resolve("bad.gguf");
        for (int trial = 0; trial < 3000; trial++) {
            byte[] copy = whole.clone();
            int flips = 1 + random.nextInt(4);
            for (int f = 0; f < flips; f++) {
                int at = random.nextInt(Math.min(copy.length, 700));
                copy[at] = (byte) random.nextInt(256);
            }
            Files.write(bad, copy);
            try (GgufFile ignored = GgufFile.open(bad)) {
                // Some corruptions leave a valid file (a changed float, a changed letter of a key).
            } catch (GgufException expected) {
                assertThat(expected.getMessage()).as("seed %d", seed).startsWith(bad.toString());
            }
        }
    }

    @Test
    void hostileLengthsAreRejectedBeforeAllocating() throws IOException {
        ByteBuffer b = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(GgufFile.MAGIC).putInt(3).putLong(0).putLong(1);
        b.putLong(Long.MAX_VALUE - 3); // key length far beyond the file
        Path file = dir.resolve("hostile.gguf");
        Files.write(file, b.array());
        assertThatThrownBy(() -> GgufFile.open(file))
                .isInstanceOf(GgufException.class)
                .hasMessageContaining("at byte offset 24")
                .hasMessageContaining("metadata key");

        b.clear();
        b.putInt(GgufFile.MAGIC).putInt(3).putLong(1L << 40).putLong(0);
        Files.write(file, b.array());
        assertThatThrownBy(() -> GgufFile.open(file)).isInstanceOf(GgufException.class)
                .hasMessageContaining("tensor count");
    }

    @Test
    void rejectsWrongMagicVersionOneAndBigEndian() throws IOException {
        Path file = dir.resolve("x.gguf");
        Files.write(file, "GGML and more bytes here........".getBytes());
        assertThatThrownBy(() -> GgufFile.open(file)).hasMessageContaining("not a GGUF file");
        ByteBuffer b = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(GgufFile.MAGIC).putInt(1);
        Files.write(file, b.array());
        assertThatThrownBy(() -> GgufFile.open(file)).hasMessageContaining("version 1 is not supported");
        b.clear();
        b.putInt(GgufFile.MAGIC).putInt(Integer.reverseBytes(3));
        Files.write(file, b.array());
        assertThatThrownBy(() -> GgufFile.open(file)).hasMessageContaining("big-endian");
        assertThatThrownBy(() -> GgufFile.open(dir.resolve("absent.gguf"))).isInstanceOf(GgufException.class)
                .hasMessageContaining("no such file");
    }

    @Test
    void readsTheReferenceModels() {
        Path models = Path.of(System.getProperty("squall.reference.dir", "../../../shared/reference"), "models");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(models),
                "reference models absent at " + models + "; skipping");
        try (GgufFile gguf = GgufFile.open(models.resolve("stories260K.gguf"))) {
            assertThat(gguf.metadata().getString("general.architecture")).isEqualTo("llama");
            assertThat(gguf.metadata().getInt("llama.embedding_length")).isEqualTo(64);
            assertThat(gguf.metadata().getStringArray("tokenizer.ggml.tokens")).hasSize(512);
            assertThat(gguf.tensor("token_embd.weight").orElseThrow().dims()).containsExactly(64, 512);
        }
        try (GgufFile gguf = GgufFile.open(models.resolve("tiny-llama-spm-q4_0.gguf"))) {
            assertThat(gguf.tensor("blk.0.attn_q.weight").orElseThrow().type()).isEqualTo(GgmlType.Q4_0);
        }
    }
}

package io.squall.functions.api.codec;

import io.squall.functions.api.CacheSources;
import io.squall.functions.api.ErrorCode;
import io.squall.functions.api.FinishReason;
import io.squall.functions.api.GenerateRequest;
import io.squall.functions.api.KvBlockFrame;
import io.squall.functions.api.KvPushHeader;
import io.squall.functions.api.KvFetchRequest;
import io.squall.functions.api.PrefillRequest;
import io.squall.functions.api.PrefillResult;
import io.squall.functions.api.SamplingOptions;
import io.squall.functions.api.StageException;
import io.squall.functions.api.TokenChunk;
import io.squall.kvgrid.BlockHash;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

class WireFormatTest {

    private static final GenerateRequest REQUEST = new GenerateRequest("req-ü-1", new int[] {1, 127, 128, 150_000, 0},
            new SamplingOptions(0.7, 40, 0.9, 0.05, 1.1, 0.2, -0.3, -42L), 256, true, 5);
    private static final TokenChunk CHUNK = new TokenChunk(new int[] {7, 300},
            List.of(new TokenChunk.TokenLogprobs(7, -0.5f, new int[] {7, 9}, new float[] {-0.5f, -1.25f}),
                    new TokenChunk.TokenLogprobs(300, -2f, new int[0], new float[0])),
            FinishReason.LENGTH, new TokenChunk.Usage(5, 2, 0));

    @Test
    void generateRequestsRoundTrip() {
        GenerateRequest back = WireFormat.decodeGenerateRequest(ByteBuffer.wrap(WireFormat.encode(REQUEST)));
        assertThat(back.requestId()).isEqualTo(REQUEST.requestId());
        assertThat(back.tokens()).containsExactly(REQUEST.tokens());
        assertThat(back.sampling()).isEqualTo(REQUEST.sampling());
        assertThat(back.maxTokens()).isEqualTo(256);
        assertThat(back.ignoreEos()).isTrue();
        assertThat(back.topLogprobs()).isEqualTo(5);

        GenerateRequest greedy = new GenerateRequest("g", new int[] {3}, SamplingOptions.greedy(), 1, false, -1);
        GenerateRequest greedyBack = WireFormat.decodeGenerateRequest(ByteBuffer.wrap(WireFormat.encode(greedy)));
        assertThat(greedyBack.sampling()).isEqualTo(SamplingOptions.greedy());
        assertThat(greedyBack.topLogprobs()).isEqualTo(-1);
    }

    @Test
    void aLogitBiasTravelsAsATrailingFieldThatOlderFramesLack() {
        SamplingOptions biased = new SamplingOptions(0, 0, 1, 0, 1, 0, 0, null, Map.of(5, -100.0, 70_000, 2.5, 0, 0.25));
        GenerateRequest request = new GenerateRequest("b", new int[] {1, 2}, biased, 4, false, -1);
        byte[] frame = WireFormat.encode(request);
        assertThat(WireFormat.decodeGenerateRequest(ByteBuffer.wrap(frame)).sampling()).isEqualTo(biased);

        byte[] unbiased = WireFormat.encode(new GenerateRequest("b", new int[] {1, 2}, SamplingOptions.greedy(), 4, false, -1));
        assertThat(frame.length).isGreaterThan(unbiased.length);
        assertThat(WireFormat.decodeGenerateRequest(ByteBuffer.wrap(unbiased)).sampling().logitBias()).isEmpty();

        PrefillRequest prefill = new PrefillRequest("p", new int[] {1}, "squall/worker/generate/ab", new int[] {4}, 0, 1L,
                biased);
        assertThat(WireFormat.decodePrefillRequest(ByteBuffer.wrap(WireFormat.encode(prefill))).sampling())
                .isEqualTo(biased);
    }

    @Test
    void theTiersOfCachedTokensTravelAfterTheUsageAndOlderFramesLackThem() {
        CacheSources sources = new CacheSources(32, 160, 16, 300);
        TokenChunk withTiers = new TokenChunk(new int[0], List.of(), FinishReason.STOP,
                new TokenChunk.Usage(600, 3, 508, sources));
        byte[] frame = WireFormat.encode(withTiers);
        assertThat(WireFormat.decodeTokenChunk(ByteBuffer.wrap(frame)).usage().sources()).isEqualTo(sources);

        byte[] older = WireFormat.encode(new TokenChunk(new int[0], List.of(), FinishReason.STOP,
                new TokenChunk.Usage(600, 3, 508)));
        assertThat(frame.length).isGreaterThan(older.length);
        TokenChunk.Usage without = WireFormat.decodeTokenChunk(ByteBuffer.wrap(older)).usage();
        assertThat(without.cachedTokens()).isEqualTo(508);
        assertThat(without.sources()).isNull();
    }

    @Test
    void tokenChunksRoundTrip() {
        TokenChunk back = WireFormat.decodeTokenChunk(ByteBuffer.wrap(WireFormat.encode(CHUNK)));
        assertThat(back.tokenIds()).containsExactly(7, 300);
        assertThat(back.finishReason()).isEqualTo(FinishReason.LENGTH);
        assertThat(back.usage()).isEqualTo(CHUNK.usage());
        assertThat(back.logprobs()).hasSize(2);
        assertThat(back.logprobs().get(0).topTokenIds()).containsExactly(7, 9);
        assertThat(back.logprobs().get(0).topLogprobs()).containsExactly(-0.5f, -1.25f);
        assertThat(back.logprobs().get(1).logprob()).isEqualTo(-2f);

        TokenChunk plain = new TokenChunk(new int[] {42}, List.of(), null, null);
        TokenChunk plainBack = WireFormat.decodeTokenChunk(ByteBuffer.wrap(WireFormat.encode(plain)));
        assertThat(plainBack.tokenIds()).containsExactly(42);
        assertThat(plainBack.isLast()).isFalse();
        assertThat(plainBack.usage()).isNull();
    }

    @Test
    void prefillMessagesRoundTrip() {
        SamplingOptions sampling = new SamplingOptions(0.7, 40, 0.9, 0.05, 1.1, 0.2, 0.3, -9L);
        PrefillRequest request = new PrefillRequest("p", new int[] {1, 2, 3}, "squall/worker/generate/ab", new int[] {9, 10},
                3, -77L, sampling);
        PrefillRequest back = WireFormat.decodePrefillRequest(ByteBuffer.wrap(WireFormat.encode(request)));
        assertThat(back.requestId()).isEqualTo("p");
        assertThat(back.tokens()).containsExactly(1, 2, 3);
        assertThat(back.targetWorker()).isEqualTo("squall/worker/generate/ab");
        assertThat(back.destinationBlockIds()).containsExactly(9, 10);
        assertThat(back.firstBlock()).isEqualTo(3);
        assertThat(back.reservation()).isEqualTo(-77L);
        assertThat(back.sampling()).isEqualTo(sampling);
        assertThat(WireFormat.decodeKvPushHeader(ByteBuffer.wrap(WireFormat.encode(new KvPushHeader(-3L, 12)))))
                .isEqualTo(new KvPushHeader(-3L, 12));
        assertThat(WireFormat.decodePrefillResult(ByteBuffer.wrap(WireFormat.encode(new PrefillResult(77, 4)))))
                .isEqualTo(new PrefillResult(77, 4));
    }

    @Test
    void kvBlockFramesRoundTripAndCheckTheirCrc() {
        byte[] payload = new byte[1000];
        new SplittableRandom(3).nextBytes(payload);
        KvBlockFrame frame = new KvBlockFrame(new BlockHash(-5L), 12, payload, WireFormat.crc32c(payload));
        byte[] bytes = WireFormat.encode(frame);
        KvBlockFrame back = WireFormat.decodeKvBlockFrame(ByteBuffer.wrap(bytes));
        assertThat(back.blockHash()).isEqualTo(new BlockHash(-5L));
        assertThat(back.index()).isEqualTo(12);
        assertThat(back.payload()).isEqualTo(payload);

        bytes[20] ^= 1; // inside the payload
        assertInvalid(() -> WireFormat.decodeKvBlockFrame(ByteBuffer.wrap(bytes)), "CRC32C");
    }

    @Test
    void kvFetchRequestsRoundTripAndRejectMalformedCounts() {
        KvFetchRequest request = new KvFetchRequest(List.of(new BlockHash(Long.MIN_VALUE), new BlockHash(0),
                new BlockHash(42)));
        byte[] bytes = WireFormat.encode(request);
        assertThat(WireFormat.decodeKvFetchRequest(ByteBuffer.wrap(bytes))).isEqualTo(request);
        for (int length = 0; length < bytes.length; length++) {
            byte[] cut = Arrays.copyOf(bytes, length);
            assertInvalid(() -> WireFormat.decodeKvFetchRequest(ByteBuffer.wrap(cut)), "malformed frame");
        }
        byte[] empty = {(byte) WireFormat.VERSION, (byte) MessageType.KV_FETCH_REQUEST.tag(), 0};
        assertInvalid(() -> WireFormat.decodeKvFetchRequest(ByteBuffer.wrap(empty)), "no blocks");
        byte[] tooMany = new WireWriter(8).header(MessageType.KV_FETCH_REQUEST)
                .varint(KvFetchRequest.MAX_BLOCKS + 1).toByteArray();
        assertInvalid(() -> WireFormat.decodeKvFetchRequest(ByteBuffer.wrap(tooMany)), "exceeds the limit");
    }

    @Test
    void everyTruncationIsAnInvalidRequest() {
        byte[] request = WireFormat.encode(REQUEST);
        for (int length = 0; length < request.length; length++) {
            byte[] cut = Arrays.copyOf(request, length);
            assertInvalid(() -> WireFormat.decodeGenerateRequest(ByteBuffer.wrap(cut)), "malformed frame");
        }
        byte[] chunk = WireFormat.encode(CHUNK);
        for (int length = 0; length < chunk.length; length++) {
            byte[] cut = Arrays.copyOf(chunk, length);
            assertInvalid(() -> WireFormat.decodeTokenChunk(ByteBuffer.wrap(cut)), "malformed frame");
        }
    }

    @Test
    void unknownVersionsTypesAndHostileCountsAreInvalidRequests() {
        byte[] request = WireFormat.encode(REQUEST);
        byte[] future = request.clone();
        future[0] = 2;
        assertInvalid(() -> WireFormat.decodeGenerateRequest(ByteBuffer.wrap(future)), "unsupported wire version 2");
        assertInvalid(() -> WireFormat.decodeTokenChunk(ByteBuffer.wrap(request)), "expected a TOKEN_CHUNK frame");
        byte[] hugeCount = new WireWriter(16).header(MessageType.TOKEN_CHUNK).varint(Integer.MAX_VALUE).toByteArray();
        assertInvalid(() -> WireFormat.decodeTokenChunk(ByteBuffer.wrap(hugeCount)), "exceeds the limit");
        byte[] countBeyondFrame = new WireWriter(16).header(MessageType.TOKEN_CHUNK).varint(1000).toByteArray();
        assertInvalid(() -> WireFormat.decodeTokenChunk(ByteBuffer.wrap(countBeyondFrame)), "does not fit");
        byte[] badUtf8 = new WireWriter(16).header(MessageType.GENERATE_REQUEST).bytes(new byte[] {(byte) 0xC3}).toByteArray();
        assertInvalid(() -> WireFormat.decodeGenerateRequest(ByteBuffer.wrap(badUtf8)), "UTF-8");
        byte[] longVarint = {1, 2, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 1};
        assertInvalid(() -> WireFormat.decodeTokenChunk(ByteBuffer.wrap(longVarint)), "varint");
    }

    @Test
    void requestsNoStageCanServeAreInvalidRequests() {
        assertInvalid(() -> decodeGenerate(new int[0], SAMPLING_FIELDS, 4, -1, NO_BIAS), "no prompt tokens");
        assertInvalid(() -> decodeGenerate(new int[] {1}, SAMPLING_FIELDS, 0, -1, NO_BIAS), "maxTokens");
        assertInvalid(() -> decodeGenerate(new int[] {1}, SAMPLING_FIELDS, 4, GenerateRequest.MAX_TOP_LOGPROBS + 1, NO_BIAS),
                "topLogprobs");
        assertInvalid(() -> decodeGenerate(new int[] {1}, SAMPLING_FIELDS, 4, -2, NO_BIAS), "topLogprobs");
        // a repetition penalty of 1.468e-223 is 0 as a float: the sampler would divide a logit by it
        double[] tinyPenalty = SAMPLING_FIELDS.clone();
        tinyPenalty[3] = 1.468e-223;
        assertInvalid(() -> decodeGenerate(new int[] {1}, tinyPenalty, 4, -1, NO_BIAS), "repetitionPenalty");
        double[] infiniteTemperature = SAMPLING_FIELDS.clone();
        infiniteTemperature[0] = Double.POSITIVE_INFINITY;
        assertInvalid(() -> decodeGenerate(new int[] {1}, infiniteTemperature, 4, -1, NO_BIAS), "temperature");
        assertInvalid(() -> decodeGenerate(new int[] {1}, SAMPLING_FIELDS, 4, -1, Map.of(3, Float.POSITIVE_INFINITY)),
                "logit bias");
        byte[] prefillWithNaN = WireFormat.encode(new PrefillRequest("p", new int[] {1, 2}, "w", new int[] {0}, 0, 9L,
                SamplingOptions.greedy()));
        // the sampling settings end the frame: temperature, topK (1 byte), five more doubles, the seed flag
        int temperatureAt = prefillWithNaN.length - 6 * Double.BYTES - 2;
        ByteBuffer.wrap(prefillWithNaN, temperatureAt, Double.BYTES).order(ByteOrder.LITTLE_ENDIAN).putDouble(Double.NaN);
        assertInvalid(() -> WireFormat.decodePrefillRequest(ByteBuffer.wrap(prefillWithNaN)), "temperature");
    }

    /** temperature, topP, minP, repetition, presence, frequency as {@link #decodeGenerate} writes them (topK 0). */
    private static final double[] SAMPLING_FIELDS = {0.7, 1, 0, 1, 0, 0};
    private static final Map<Integer, Float> NO_BIAS = Map.of();

    /** A generate request written field by field (so out-of-range values can be written), then decoded. */
    private static GenerateRequest decodeGenerate(int[] tokens, double[] sampling, int maxTokens, int topLogprobs,
                                                  Map<Integer, Float> bias) {
        WireWriter w = new WireWriter(64).header(MessageType.GENERATE_REQUEST).string("r").varints(tokens)
                .f64(sampling[0]).varint(0).f64(sampling[1]).f64(sampling[2]).f64(sampling[3]).f64(sampling[4])
                .f64(sampling[5]).bool(false).varint(maxTokens).bool(false).zigzag(topLogprobs);
        if (!bias.isEmpty()) {
            w.varint(bias.size());
            bias.forEach((token, value) -> w.varint(token).f32(value));
        }
        return WireFormat.decodeGenerateRequest(ByteBuffer.wrap(w.toByteArray()));
    }

    @Test
    void randomBytesNeverEscapeAsAnythingButInvalidRequests() {
        long seed = System.nanoTime();
        System.out.println("WireFormatTest random seed " + seed);
        SplittableRandom random = new SplittableRandom(seed);
        List<Function<ByteBuffer, ?>> decoders = List.of(WireFormat::decodeGenerateRequest, WireFormat::decodeTokenChunk,
                WireFormat::decodePrefillRequest, WireFormat::decodePrefillResult, WireFormat::decodeKvBlockFrame,
                WireFormat::decodeKvPushHeader);
        for (int i = 0; i < 20_000; i++) {
            byte[] bytes = new byte[random.nextInt(64)];
            random.nextBytes(bytes);
            if (bytes.length > 0 && random.nextBoolean()) {
                bytes[0] = WireFormat.VERSION; // get past the header more often
                if (bytes.length > 1) {
                    bytes[1] = (byte) (1 + random.nextInt(8));
                }
            }
            for (Function<ByteBuffer, ?> decoder : decoders) {
                Throwable thrown = catchThrowable(() -> decoder.apply(ByteBuffer.wrap(bytes)));
                if (thrown != null) {
                    assertThat(thrown).as("seed %d input %s", seed, Arrays.toString(bytes))
                            .isInstanceOfSatisfying(StageException.class,
                                    e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_REQUEST));
                }
            }
        }
    }

    private static void assertInvalid(Runnable decode, String message) {
        assertThatThrownBy(decode::run)
                .isInstanceOfSatisfying(StageException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_REQUEST))
                .hasMessageContaining(message);
    }
}

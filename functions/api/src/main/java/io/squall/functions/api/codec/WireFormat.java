package io.squall.functions.api.codec;

import io.squall.functions.api.CacheSources;
import io.squall.functions.api.FinishReason;
import io.squall.functions.api.GenerateRequest;
import io.squall.functions.api.KvBlockFrame;
import io.squall.functions.api.KvFetchRequest;
import io.squall.functions.api.KvPushHeader;
import io.squall.functions.api.PrefillRequest;
import io.squall.functions.api.PrefillResult;
import io.squall.functions.api.SamplingOptions;
import io.squall.functions.api.StageException;
import io.squall.functions.api.TokenChunk;
import io.squall.kvgrid.BlockHash;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.zip.CRC32C;

/**
 * Encodes and decodes the internal payloads of the stage routes, version {@value #VERSION}. The schema
 * (field order, types, limits and the versioning rule) is published in {@code docs/wire-protocol.md};
 * this class is its only implementation.
 *
 * <p>Decoding never throws anything but {@link StageException} with
 * {@link io.squall.functions.api.ErrorCode#INVALID_REQUEST}. Bytes after the last known field are
 * ignored, so a version-1 reader accepts frames from writers that appended optional fields.
 *
 * <p>Stateless and thread-safe.
 */
public final class WireFormat {

    /** The version byte this implementation writes and reads. */
    public static final int VERSION = 1;
    /** Most token ids in one message. */
    public static final int MAX_TOKENS = 1 << 20;
    /** Most UTF-8 bytes in an identifier. */
    public static final int MAX_ID_BYTES = 512;

    /** Most bytes in one KV block payload. */
    public static final int MAX_BLOCK_BYTES = 64 << 20;

    private WireFormat() {
    }

    public static byte[] encode(GenerateRequest r) {
        WireWriter w = new WireWriter(64 + 3 * r.tokens().length).header(MessageType.GENERATE_REQUEST)
                .string(r.requestId())
                .varints(r.tokens());
        sampling(w, r.sampling());
        w.varint(r.maxTokens()).bool(r.ignoreEos()).zigzag(r.topLogprobs());
        return logitBias(w, r.sampling()).toByteArray();
    }

    /** The logit bias, a trailing field (absent = none): count, then token id (varint) and bias (f32) per entry. */
    private static WireWriter logitBias(WireWriter w, SamplingOptions s) {
        if (s.logitBias().isEmpty()) {
            return w;
        }
        w.varint(s.logitBias().size());
        new TreeMap<>(s.logitBias()).forEach((token, bias) -> w.varint(token).f32(bias.floatValue()));
        return w;
    }

    private static SamplingOptions withLogitBias(WireReader in, SamplingOptions s) {
        if (!in.hasMore()) {
            return s;
        }
        int n = in.count(SamplingOptions.MAX_LOGIT_BIAS_TOKENS, 5);
        Map<Integer, Double> bias = new HashMap<>();
        for (int i = 0; i < n; i++) {
            bias.put(in.varint(), (double) in.f32());
        }
        return checked(() -> new SamplingOptions(s.temperature(), s.topK(), s.topP(), s.minP(), s.repetitionPenalty(),
                s.presencePenalty(), s.frequencyPenalty(), s.seed(), bias));
    }

    private static void sampling(WireWriter w, SamplingOptions s) {
        w.f64(s.temperature()).varint(s.topK()).f64(s.topP()).f64(s.minP())
                .f64(s.repetitionPenalty()).f64(s.presencePenalty()).f64(s.frequencyPenalty())
                .bool(s.seed() != null);
        if (s.seed() != null) {
            w.i64(s.seed());
        }
    }

    private static SamplingOptions sampling(WireReader in) {
        double temperature = in.f64();
        int topK = in.varint();
        double topP = in.f64();
        double minP = in.f64();
        double repetition = in.f64();
        double presence = in.f64();
        double frequency = in.f64();
        Long seed = in.bool() ? in.i64() : null;
        return checked(() -> new SamplingOptions(temperature, topK, topP, minP, repetition, presence, frequency, seed));
    }

    public static GenerateRequest decodeGenerateRequest(ByteBuffer frame) {
        WireReader in = new WireReader(frame).header(MessageType.GENERATE_REQUEST);
        String id = in.string(MAX_ID_BYTES);
        int[] tokens = in.varints(MAX_TOKENS);
        SamplingOptions sampling = sampling(in);
        int maxTokens = in.varint();
        boolean ignoreEos = in.bool();
        int topLogprobs = in.zigzag();
        if (tokens.length == 0) {
            throw WireReader.malformed("a generate request has no prompt tokens");
        }
        if (maxTokens < 1) {
            throw WireReader.malformed("maxTokens must be at least 1, got " + maxTokens);
        }
        if (topLogprobs < -1 || topLogprobs > GenerateRequest.MAX_TOP_LOGPROBS) {
            throw WireReader.malformed("topLogprobs must be within -1.." + GenerateRequest.MAX_TOP_LOGPROBS + ", got " + topLogprobs);
        }
        SamplingOptions options = withLogitBias(in, sampling);
        return checked(() -> new GenerateRequest(id, tokens, options, maxTokens, ignoreEos, topLogprobs));
    }

    /**
     * What {@code build} makes of decoded fields, a field out of the range its record accepts (a setting no sampler
     * can use, an empty prompt) being a malformed frame rather than an unchecked exception.
     */
    private static <T> T checked(Supplier<T> build) {
        try {
            return build.get();
        } catch (IllegalArgumentException outOfRange) {
            throw WireReader.malformed(outOfRange.getMessage());
        }
    }

    public static byte[] encode(TokenChunk c) {
        WireWriter w = new WireWriter(16 + 3 * c.tokenIds().length).header(MessageType.TOKEN_CHUNK)
                .varints(c.tokenIds())
                .varint(c.logprobs().size());
        for (TokenChunk.TokenLogprobs lp : c.logprobs()) {
            w.varint(lp.tokenId()).f32(lp.logprob()).varint(lp.topTokenIds().length);
            for (int i = 0; i < lp.topTokenIds().length; i++) {
                w.varint(lp.topTokenIds()[i]).f32(lp.topLogprobs()[i]);
            }
        }
        w.u8(c.finishReason() == null ? 0 : c.finishReason().ordinal() + 1);
        w.bool(c.usage() != null);
        if (c.usage() != null) {
            w.varint(c.usage().promptTokens()).varint(c.usage().completionTokens()).varint(c.usage().cachedTokens());
            CacheSources sources = c.usage().sources();
            if (sources != null) { // appended after the first version: readers that predate it stop before
                w.varint(sources.g1()).varint(sources.g2()).varint(sources.g3()).varint(sources.remote());
            }
        }
        return w.toByteArray();
    }

    public static TokenChunk decodeTokenChunk(ByteBuffer frame) {
        WireReader in = new WireReader(frame).header(MessageType.TOKEN_CHUNK);
        int[] tokens = in.varints(MAX_TOKENS);
        int n = in.count(MAX_TOKENS, 6);
        List<TokenChunk.TokenLogprobs> logprobs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int token = in.varint();
            float logprob = in.f32();
            int k = in.count(GenerateRequest.MAX_TOP_LOGPROBS, 5);
            int[] ids = new int[k];
            float[] values = new float[k];
            for (int j = 0; j < k; j++) {
                ids[j] = in.varint();
                values[j] = in.f32();
            }
            logprobs.add(new TokenChunk.TokenLogprobs(token, logprob, ids, values));
        }
        int finish = in.u8();
        FinishReason[] reasons = FinishReason.values();
        if (finish > reasons.length) {
            throw WireReader.malformed("unknown finish reason " + finish);
        }
        TokenChunk.Usage usage = null;
        if (in.bool()) {
            int prompt = in.varint();
            int completion = in.varint();
            int cached = in.varint();
            CacheSources sources = in.hasMore() ? new CacheSources(in.varint(), in.varint(), in.varint(), in.varint()) : null;
            usage = new TokenChunk.Usage(prompt, completion, cached, sources);
        }
        return new TokenChunk(tokens, logprobs, finish == 0 ? null : reasons[finish - 1], usage);
    }

    public static byte[] encode(PrefillRequest r) {
        WireWriter w = new WireWriter(96 + 3 * r.tokens().length + 3 * r.destinationBlockIds().length)
                .header(MessageType.PREFILL_REQUEST)
                .string(r.requestId())
                .varints(r.tokens())
                .string(r.targetWorker())
                .varints(r.destinationBlockIds())
                .varint(r.firstBlock())
                .i64(r.reservation());
        sampling(w, r.sampling());
        return logitBias(w, r.sampling()).toByteArray();
    }

    public static PrefillRequest decodePrefillRequest(ByteBuffer frame) {
        WireReader in = new WireReader(frame).header(MessageType.PREFILL_REQUEST);
        String id = in.string(MAX_ID_BYTES);
        int[] tokens = in.varints(MAX_TOKENS);
        String target = in.string(MAX_ID_BYTES);
        int[] destinations = in.varints(MAX_TOKENS);
        int firstBlock = in.varint();
        long reservation = in.i64();
        SamplingOptions sampling = withLogitBias(in, sampling(in));
        if (tokens.length == 0) {
            throw WireReader.malformed("a prefill request has no tokens");
        }
        return checked(() -> new PrefillRequest(id, tokens, target, destinations, firstBlock, reservation, sampling));
    }

    public static byte[] encode(KvPushHeader h) {
        return new WireWriter(16).header(MessageType.KV_PUSH_HEADER).i64(h.reservation()).varint(h.blocks()).toByteArray();
    }

    public static KvPushHeader decodeKvPushHeader(ByteBuffer frame) {
        WireReader in = new WireReader(frame).header(MessageType.KV_PUSH_HEADER);
        long reservation = in.i64();
        int blocks = in.varint();
        if (blocks == 0) {
            throw WireReader.malformed("a KV push announces no blocks");
        }
        return new KvPushHeader(reservation, blocks);
    }

    public static byte[] encode(PrefillResult r) {
        return new WireWriter(12).header(MessageType.PREFILL_RESULT)
                .varint(r.firstToken()).varint(r.blocksWritten()).toByteArray();
    }

    public static PrefillResult decodePrefillResult(ByteBuffer frame) {
        WireReader in = new WireReader(frame).header(MessageType.PREFILL_RESULT);
        return new PrefillResult(in.varint(), in.varint());
    }

    public static byte[] encode(KvBlockFrame f) {
        return new WireWriter(24 + f.payload().length).header(MessageType.KV_BLOCK_FRAME)
                .i64(f.blockHash().value())
                .varint(f.index())
                .bytes(f.payload())
                .i32(f.crc32c())
                .toByteArray();
    }

    /** Decodes a KV block frame and checks its CRC32C; a mismatch is a malformed frame. */
    public static KvBlockFrame decodeKvBlockFrame(ByteBuffer frame) {
        WireReader in = new WireReader(frame).header(MessageType.KV_BLOCK_FRAME);
        BlockHash hash = new BlockHash(in.i64());
        int index = in.varint();
        byte[] payload = in.bytes(MAX_BLOCK_BYTES);
        int crc = in.i32();
        if (crc32c(payload) != crc) {
            throw WireReader.malformed("CRC32C mismatch in KV block " + hash);
        }
        return new KvBlockFrame(hash, index, payload, crc);
    }

    public static byte[] encode(KvFetchRequest r) {
        WireWriter w = new WireWriter(8 + Long.BYTES * r.hashes().size()).header(MessageType.KV_FETCH_REQUEST)
                .varint(r.hashes().size());
        for (BlockHash hash : r.hashes()) {
            w.i64(hash.value());
        }
        return w.toByteArray();
    }

    public static KvFetchRequest decodeKvFetchRequest(ByteBuffer frame) {
        WireReader in = new WireReader(frame).header(MessageType.KV_FETCH_REQUEST);
        int n = in.count(KvFetchRequest.MAX_BLOCKS, Long.BYTES);
        if (n == 0) {
            throw WireReader.malformed("a KV fetch asks for no blocks");
        }
        List<BlockHash> hashes = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            hashes.add(new BlockHash(in.i64()));
        }
        return new KvFetchRequest(hashes);
    }

    /** The CRC32C of {@code payload}, as carried by {@link KvBlockFrame#crc32c()}. */
    public static int crc32c(byte[] payload) {
        CRC32C crc = new CRC32C();
        crc.update(payload);
        return (int) crc.getValue();
    }
}

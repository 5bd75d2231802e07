package io.squall.cli.bench;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.squall.functions.api.GenerateRequest;
import io.squall.functions.api.KvBlockFrame;
import io.squall.functions.api.KvFetchRequest;
import io.squall.functions.api.KvPushHeader;
import io.squall.functions.api.PrefillRequest;
import io.squall.functions.api.Routes;
import io.squall.functions.api.SamplingOptions;
import io.squall.functions.api.codec.WireFormat;
import io.squall.functions.api.rsocket.RouteMetadata;
import io.squall.kvgrid.BlockHash;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * The fuzz corpus: for each route a well-formed request (the baseline), and seeded mutations of it and of its
 * routing metadata. The same seed gives the same cases. Not thread-safe (one {@link Random}).
 */
final class FuzzCases {

    /** A route under fuzz: its name and the interaction the stage serves it with. */
    enum Route {
        GENERATE(Routes.GENERATE), PREFILL(Routes.PREFILL), KV_PUSH(Routes.KV_PUSH), KV_FETCH(Routes.KV_FETCH),
        V1_CHAT(Routes.V1_CHAT), V1_COMPLETIONS(Routes.V1_COMPLETIONS);

        final String wireName;

        Route(String wireName) {
            this.wireName = wireName;
        }

        /** Whether a gateway serves it (the client API), else a worker. */
        boolean clientApi() {
            return this == V1_CHAT || this == V1_COMPLETIONS;
        }
    }

    /** How a case changes its baseline. */
    enum Mutation { VALID, RANDOM, BIT_FLIPS, TRUNCATE, EXTEND, HUGE_LENGTH, SPLICE, EMPTY }

    /**
     * One fuzzed request: the data of its payloads in order (one for request-stream and request-response; the
     * {@code kv.push} header then its block frames for the channel) and its metadata.
     */
    record Case(Route route, Mutation mutation, boolean metadataMutated, List<byte[]> data, byte[] metadata) {
    }

    private static final ByteBufAllocator ALLOCATOR = ByteBufAllocator.DEFAULT;
    private final Random random;
    private final String model;

    /** @param model the model the client API's requests name */
    FuzzCases(long seed, String model) {
        this.random = new Random(seed);
        this.model = model;
    }

    /** The next case: a route, a mutation of one of its payloads and, one time in eight, of its metadata. */
    Case next() {
        Route route = Route.values()[random.nextInt(Route.values().length)];
        Mutation mutation = Mutation.values()[random.nextInt(Mutation.values().length)];
        List<byte[]> data = baseline(route);
        int target = random.nextInt(data.size());
        data.set(target, mutate(data.get(target), mutation));
        byte[] metadata = routeMetadata(route.wireName);
        boolean metadataMutated = random.nextInt(8) == 0;
        if (metadataMutated) {
            metadata = random.nextBoolean() ? routeMetadata(randomAscii(1 + random.nextInt(24)))
                    : mutate(metadata, Mutation.values()[1 + random.nextInt(Mutation.values().length - 1)]);
        }
        return new Case(route, mutation, metadataMutated, data, metadata);
    }

    /** Composite metadata routing to {@code route}. */
    static byte[] routeMetadata(String route) {
        ByteBuf metadata = RouteMetadata.encode(ALLOCATOR, route);
        try {
            return ByteBufUtil.getBytes(metadata);
        } finally {
            metadata.release();
        }
    }

    /** The well-formed payloads of {@code route}, as a new mutable list. */
    List<byte[]> baseline(Route route) {
        int[] prompt = new int[1 + random.nextInt(40)];
        Arrays.setAll(prompt, i -> 1 + random.nextInt(200));
        return new java.util.ArrayList<>(switch (route) {
            case GENERATE -> List.of(WireFormat.encode(new GenerateRequest("fuzz", prompt, SamplingOptions.greedy(),
                    1 + random.nextInt(4), random.nextBoolean(), random.nextInt(3) - 1)));
            case PREFILL -> List.of(WireFormat.encode(new PrefillRequest("fuzz", prompt, "squall/worker/generate/1",
                    new int[] {0, 1, 2}, 0, random.nextLong(), SamplingOptions.greedy())));
            case KV_PUSH -> {
                byte[] block = new byte[64 + random.nextInt(256)];
                random.nextBytes(block);
                yield List.of(WireFormat.encode(new KvPushHeader(random.nextLong(), 2)),
                        WireFormat.encode(new KvBlockFrame(new BlockHash(random.nextLong()), 0, block, WireFormat.crc32c(block))),
                        WireFormat.encode(new KvBlockFrame(new BlockHash(random.nextLong()), 1, block, WireFormat.crc32c(block))));
            }
            case KV_FETCH -> List.of(WireFormat.encode(new KvFetchRequest(List.of(new BlockHash(random.nextLong()),
                    new BlockHash(random.nextLong())))));
            case V1_CHAT -> List.of(("{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"user\",\"content\":\"" + randomAscii(8)
                    + "\"}],\"max_tokens\":2,\"temperature\":0}").getBytes(StandardCharsets.UTF_8));
            case V1_COMPLETIONS -> List.of(("{\"model\":\"" + model + "\",\"prompt\":\"" + randomAscii(8)
                    + "\",\"max_tokens\":2,\"logprobs\":1}").getBytes(StandardCharsets.UTF_8));
        });
    }

    /** {@code bytes} changed as {@code mutation} says (a new array; {@code bytes} is not changed). */
    byte[] mutate(byte[] bytes, Mutation mutation) {
        byte[] out = bytes.clone();
        switch (mutation) {
            case VALID -> { }
            case RANDOM -> {
                out = new byte[random.nextInt(512)];
                random.nextBytes(out);
            }
            case BIT_FLIPS -> {
                for (int i = 1 + random.nextInt(8); i > 0 && out.length > 0; i--) {
                    out[random.nextInt(out.length)] ^= (byte) (1 << random.nextInt(8));
                }
            }
            case TRUNCATE -> out = Arrays.copyOf(out, out.length == 0 ? 0 : random.nextInt(out.length));
            case EXTEND -> {
                out = Arrays.copyOf(out, out.length + 1 + random.nextInt(64));
                for (int i = bytes.length; i < out.length; i++) {
                    out[i] = (byte) random.nextInt(256);
                }
            }
            case HUGE_LENGTH -> {
                // a varint of 2^31-1 or a 0xFFFFFFFF where a length or count may sit: a decoder must not allocate it
                byte[] huge = random.nextBoolean() ? new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07}
                        : new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF};
                int at = out.length == 0 ? 0 : random.nextInt(out.length);
                out = Arrays.copyOf(out, Math.max(out.length, at + huge.length));
                System.arraycopy(huge, 0, out, at, huge.length);
            }
            case SPLICE -> {
                if (out.length > 0) {
                    int from = random.nextInt(out.length);
                    int to = from + random.nextInt(out.length - from + 1);
                    for (int i = from; i < to; i++) {
                        out[i] = (byte) random.nextInt(256);
                    }
                }
            }
            case EMPTY -> out = new byte[0];
        }
        return out;
    }

    private String randomAscii(int length) {
        StringBuilder text = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            text.append((char) ('a' + random.nextInt(26)));
        }
        return text.toString();
    }

    /** A random number source for the callers that pick among cases. */
    Random random() {
        return random;
    }
}

package io.squall.cli.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A trace in the Mooncake format (FAST '25; the format of Dynamo's and Mooncake's published traces): one JSON object
 * per line with {@code timestamp} (ms from the trace's start), {@code input_length} and {@code output_length} (tokens)
 * and {@code hash_ids}, one id per {@code blockSize} tokens of the prompt, equal ids meaning equal blocks after an
 * equal prefix. Prompts are synthesised from the ids, so the trace's prefix sharing is reproduced exactly: each id
 * names a block of pseudo-random tokens drawn from the target's own vocabulary ({@code alphabet}).
 */
public final class MooncakeTrace {

    /**
     * One request of the trace.
     *
     * @param timestampMs when it arrives, in ms from the trace's start
     * @param inputLength prompt tokens
     * @param outputLength tokens to generate
     * @param hashIds the prompt's blocks
     */
    public record Entry(long timestampMs, int inputLength, int outputLength, long[] hashIds) {
        public Entry {
            if (timestampMs < 0 || inputLength < 1 || outputLength < 1) {
                throw new IllegalArgumentException("needs timestamp >= 0, input_length >= 1 and output_length >= 1");
            }
        }
    }

    private final List<Entry> entries;
    private final int blockSize;
    private final int[] alphabet;
    private final long seed;

    private MooncakeTrace(List<Entry> entries, int blockSize, int[] alphabet, long seed) {
        this.entries = entries;
        this.blockSize = blockSize;
        this.alphabet = alphabet;
        this.seed = seed;
    }

    /** Whether {@code file}'s first request line is in this format (it has {@code hash_ids} or {@code input_length}). */
    public static boolean recognises(Path file) {
        try (BufferedReader reader = Files.newBufferedReader(file)) {
            for (String line; (line = reader.readLine()) != null; ) {
                if (!line.isBlank()) {
                    return line.contains("\"hash_ids\"") || line.contains("\"input_length\"");
                }
            }
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read trace " + file, e);
        }
    }

    /**
     * Reads {@code file}, sorted by timestamp.
     *
     * @param blockSize tokens per hash id (512 in the published traces)
     * @param alphabet  the token ids prompts are drawn from, not empty
     * @throws IllegalArgumentException naming the line of a malformed request
     */
    public static MooncakeTrace read(Path file, int blockSize, int[] alphabet, long seed) {
        if (blockSize < 1 || alphabet.length == 0) {
            throw new IllegalArgumentException("the trace block size must be positive and the alphabet not empty");
        }
        ObjectMapper json = new ObjectMapper();
        List<Entry> entries = new ArrayList<>();
        try (BufferedReader reader = Files.newBufferedReader(file)) {
            int number = 0;
            for (String line; (line = reader.readLine()) != null; ) {
                number++;
                if (line.isBlank()) {
                    continue;
                }
                try {
                    JsonNode node = json.readTree(line);
                    JsonNode ids = node.path("hash_ids");
                    long[] hashIds = new long[ids.size()];
                    for (int i = 0; i < hashIds.length; i++) {
                        hashIds[i] = ids.get(i).asLong();
                    }
                    entries.add(new Entry(node.path("timestamp").asLong(-1), node.path("input_length").asInt(-1),
                            node.path("output_length").asInt(-1), hashIds));
                } catch (IOException | IllegalArgumentException e) {
                    throw new IllegalArgumentException(file + ":" + number + ": not a Mooncake trace line ("
                            + e.getMessage() + ")", e);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read trace " + file, e);
        }
        if (entries.isEmpty()) {
            throw new IllegalArgumentException(file + " holds no requests");
        }
        entries.sort(Comparator.comparingLong(Entry::timestampMs));
        return new MooncakeTrace(List.copyOf(entries), blockSize, alphabet.clone(), seed);
    }

    /**
     * The tokens synthesised prompts are drawn from: what {@code target}'s tokenizer makes of common words, less
     * whatever it adds to any prompt (BOS), so every id is an ordinary token of the served model.
     */
    public static int[] alphabet(Target target) {
        Set<Integer> added = new HashSet<>();
        for (int id : target.tokenizeText("")) {
            added.add(id);
        }
        int[] alphabet = Arrays.stream(target.tokenizeText(Workload.words(new Random(1), 400)))
                .filter(id -> !added.contains(id)).distinct().sorted().toArray();
        if (alphabet.length < 8) {
            throw new IllegalStateException("the served model's tokenizer gave only " + alphabet.length
                    + " distinct tokens for 400 words; cannot synthesise trace prompts");
        }
        return alphabet;
    }

    public List<Entry> entries() {
        return entries;
    }

    /** Sends every request of the trace, open loop, at its timestamp (scaled by {@code replay}). */
    public Report.Run replay(TraceReplay replay) throws InterruptedException {
        long[] at = entries.stream().mapToLong(Entry::timestampMs).toArray();
        return replay.run(TraceReplay.Schedule.of(at), i -> BenchRequest.tokens(prompt(i), entries.get(i).outputLength()));
    }

    /**
     * The prompt of request {@code index}: its hash ids' blocks in order, cut to its input length; tokens past its
     * last block (a trace that lists fewer blocks than its length needs) are unique to the request.
     */
    public int[] prompt(int index) {
        Entry entry = entries.get(index);
        int[] tokens = new int[entry.inputLength()];
        int filled = 0;
        for (long id : entry.hashIds()) {
            if (filled == tokens.length) {
                break;
            }
            filled = fill(tokens, filled, new SplittableRandom(mix(seed, id)));
        }
        if (filled < tokens.length) {
            fill(tokens, filled, new SplittableRandom(mix(~seed, index)));
        }
        return tokens;
    }

    private int fill(int[] tokens, int from, SplittableRandom random) {
        int end = Math.min(tokens.length, from + blockSize);
        for (int i = from; i < end; i++) {
            tokens[i] = alphabet[random.nextInt(alphabet.length)];
        }
        return end;
    }

    private static long mix(long seed, long id) {
        long z = seed + 0x9E3779B97F4A7C15L * (id + 1);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}

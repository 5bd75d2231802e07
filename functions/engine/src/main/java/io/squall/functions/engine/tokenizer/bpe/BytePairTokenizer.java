package io.squall.functions.engine.tokenizer.bpe;

import io.squall.functions.engine.tokenizer.SpecialTokens;
import io.squall.functions.engine.tokenizer.TokenizerModel;
import io.squall.functions.engine.tokenizer.Vocabulary;
import io.squall.functions.engine.tokenizer.core.AbstractTokenizer;
import io.squall.functions.engine.tokenizer.core.IntList;
import io.squall.functions.engine.tokenizer.core.TokenTable;
import io.squall.functions.engine.tokenizer.core.Utf8;
import io.squall.functions.engine.tokenizer.pretokenize.PreTokenizer;
import io.squall.functions.engine.tokenizer.pretokenize.PreTokenizers;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Byte-level BPE, llama.cpp's {@code llm_tokenizer_bpe}:
 * <ol>
 *   <li>the pre-tokenizer named by {@code tokenizer.ggml.pre} splits the text into words;</li>
 *   <li>each word's UTF-8 bytes are spelled with {@link ByteLevelAlphabet}, one symbol per byte;</li>
 *   <li>if the pre-tokenizer ignores merges (Llama 3) and the whole word is a token, that token is it;</li>
 *   <li>otherwise adjacent symbols merge, lowest merge rank first (then leftmost), until no pair has a
 *       rank; each final symbol is its token, or — when no token spells it — each of its ASCII
 *       characters that is a token (llama.cpp's single-byte fallback; other bytes are dropped).</li>
 * </ol>
 * Words repeat a lot, so their ids are cached (bounded: the cache is emptied when it reaches
 * {@value #CACHE_LIMIT} words). Thread-safe.
 */
public final class BytePairTokenizer extends AbstractTokenizer {

    static final int CACHE_LIMIT = 100_000;

    private final PreTokenizer preTokenizer;
    private final MergeRanks ranks;
    private final int[] alphabetTokens = new int[256];
    private final ConcurrentHashMap<String, int[]> cache = new ConcurrentHashMap<>();

    public BytePairTokenizer(Vocabulary vocabulary) {
        this(requireModel(vocabulary), PreTokenizers.forName(vocabulary.preTokenizer()));
    }

    private BytePairTokenizer(Vocabulary vocabulary, PreTokenizer preTokenizer) {
        super(vocabulary, new TokenTable(vocabulary, BytePairTokenizer::normalPiece), preTokenizer.cleanSpaces());
        this.preTokenizer = preTokenizer;
        this.ranks = new MergeRanks(vocabulary.merges(), table);
        for (int b = 0; b < 256; b++) {
            alphabetTokens[b] = table.id(String.valueOf(ByteLevelAlphabet.charOf(b)));
        }
    }

    private static Vocabulary requireModel(Vocabulary vocabulary) {
        if (vocabulary.model() != TokenizerModel.BYTE_LEVEL_BPE) {
            throw new IllegalArgumentException("BytePairTokenizer needs a byte-level BPE vocabulary, got "
                    + vocabulary.model());
        }
        return vocabulary;
    }

    /**
     * The bytes of a normal token: each character mapped back through the byte alphabet. A character
     * outside the alphabet is rendered as llama.cpp's {@code llama_decode_text} does:
     * {@code [UNK_BYTE_0x<its UTF-8 in hex><token text>]}.
     */
    private static byte[] normalPiece(String text) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(text.length());
        text.codePoints().forEach(cp -> {
            int b = ByteLevelAlphabet.byteOf(cp);
            if (b >= 0) {
                out.write(b);
            } else {
                StringBuilder unknown = new StringBuilder("[UNK_BYTE_0x");
                for (byte u : new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8)) {
                    unknown.append(String.format("%02x", u & 0xFF));
                }
                out.writeBytes(unknown.append(text).append(']').toString().getBytes(StandardCharsets.UTF_8));
            }
        });
        return out.toByteArray();
    }

    @Override
    protected void encodeText(String text, boolean afterSpecial, IntList out) {
        int[] codePoints = Utf8.codePoints(text);
        IntList words = preTokenizer.split(codePoints);
        byte[] utf8 = new byte[4];
        StringBuilder word = new StringBuilder();
        int start = 0;
        for (int w = 0; w < words.size(); w++) {
            int end = start + words.get(w);
            word.setLength(0);
            for (int i = start; i < end; i++) {
                int n = Utf8.encode(codePoints[i], utf8, 0);
                for (int j = 0; j < n; j++) {
                    word.append(ByteLevelAlphabet.charOf(utf8[j] & 0xFF));
                }
            }
            out.addAll(wordIds(word.toString()));
            start = end;
        }
    }

    private int[] wordIds(String word) {
        int[] ids = cache.get(word);
        if (ids == null) {
            ids = merge(word);
            if (cache.size() >= CACHE_LIMIT) {
                cache.clear();
            }
            cache.put(word, ids);
        }
        return ids;
    }

    private record Bigram(int left, int right, int rank, int size) {
    }

    /** Runs the merges over one byte-spelled word. */
    private int[] merge(String word) {
        if (preTokenizer.ignoreMerges()) {
            int whole = table.id(word);
            if (whole != SpecialTokens.NONE) {
                return new int[] {whole};
            }
        }
        int n = word.length();
        int[] length = new int[n];
        int[] prev = new int[n];
        int[] next = new int[n];
        int[] token = new int[n];
        for (int i = 0; i < n; i++) {
            length[i] = 1;
            prev[i] = i - 1;
            next[i] = i + 1 < n ? i + 1 : -1;
            token[i] = alphabetTokens[ByteLevelAlphabet.byteOf(word.charAt(i))];
        }
        PriorityQueue<Bigram> queue = new PriorityQueue<>((a, b) ->
                a.rank() != b.rank() ? Integer.compare(a.rank(), b.rank()) : Integer.compare(a.left(), b.left()));
        for (int i = 1; i < n; i++) {
            addBigram(word, i - 1, i, length, token, queue);
        }
        while (!queue.isEmpty()) {
            Bigram bigram = queue.poll();
            int left = bigram.left();
            int right = bigram.right();
            if (length[left] == 0 || length[right] == 0 || length[left] + length[right] != bigram.size()) {
                continue; // one side changed since the pair was queued
            }
            length[left] += length[right];
            length[right] = 0;
            token[left] = table.id(word.substring(left, left + length[left]));
            next[left] = next[right];
            if (next[right] >= 0) {
                prev[next[right]] = left;
            }
            if (prev[left] >= 0) {
                addBigram(word, prev[left], left, length, token, queue);
            }
            if (next[left] >= 0) {
                addBigram(word, left, next[left], length, token, queue);
            }
        }
        IntList ids = new IntList(n);
        for (int i = 0; i != -1; i = next[i]) {
            if (token[i] != SpecialTokens.NONE) {
                ids.add(token[i]);
                continue;
            }
            for (int c = i; c < i + length[i]; c++) {
                char ch = word.charAt(c);
                int single = ch < 0x80 ? table.id(String.valueOf(ch)) : SpecialTokens.NONE;
                if (single != SpecialTokens.NONE) {
                    ids.add(single);
                }
            }
        }
        return ids.toArray();
    }

    private void addBigram(String word, int left, int right, int[] length, int[] token, PriorityQueue<Bigram> queue) {
        int rank = ranks.rank(token[left], token[right], word, left, length[left], length[right]);
        if (rank >= 0) {
            queue.add(new Bigram(left, right, rank, length[left] + length[right]));
        }
    }
}

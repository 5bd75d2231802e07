package io.squall.functions.engine.tokenizer.pretokenize;

import io.squall.functions.engine.tokenizer.core.IntList;

import java.util.List;

/**
 * A byte-level BPE pre-tokenizer: the splitters llama.cpp uses for one {@code tokenizer.ggml.pre}
 * value, and the tokenizer flags llama.cpp ties to that value. Obtain one with
 * {@link PreTokenizers#forName(String)}. Immutable and thread-safe.
 */
public final class PreTokenizer {

    private final String name;
    private final List<Splitter> splitters;
    private final PreTokenizers.Behaviour behaviour;

    PreTokenizer(String name, List<String> regexes, PreTokenizers.Behaviour behaviour) {
        this.name = name;
        this.splitters = regexes.stream().map(PreTokenizer::splitterFor).toList();
        this.behaviour = behaviour;
    }

    /** llama.cpp runs these two patterns with hand-written scanners; any other with a regex engine. */
    private static Splitter splitterFor(String regex) {
        if (regex.equals(Gpt2Splitter.PATTERN)) {
            return new Gpt2Splitter();
        }
        if (regex.equals(Llama3Splitter.PATTERN) || regex.equals(Llama3Splitter.PATTERN_ADAPTED)) {
            return new Llama3Splitter();
        }
        return new RegexSplitter(regex);
    }

    /** The {@code tokenizer.ggml.pre} name. */
    public String name() {
        return name;
    }

    /**
     * Splits {@code codePoints} into words; returns their lengths in code points, in order. The words
     * cover the input exactly.
     */
    public IntList split(int[] codePoints) {
        SplitText text = new SplitText(codePoints);
        IntList fragments = new IntList(1);
        fragments.add(codePoints.length);
        for (Splitter splitter : splitters) {
            IntList pieces = new IntList(Math.max(16, fragments.size() * 2));
            splitter.split(text, fragments, pieces);
            fragments = pieces;
        }
        return fragments;
    }

    /** Whether decoding removes spaces before punctuation (llama.cpp's {@code clean_spaces}). */
    public boolean cleanSpaces() {
        return behaviour.cleanSpaces();
    }

    /** Whether a word that is itself a token skips the merges (llama.cpp's {@code ignore_merges}). */
    public boolean ignoreMerges() {
        return behaviour.ignoreMerges();
    }

    /** Whether llama.cpp adds BOS for this pre-tokenizer when the file does not say. */
    public boolean addBosByDefault() {
        return behaviour.addBos();
    }

    /** Whether llama.cpp's default BOS id (11 for BPE) applies; false where it clears it (GLM-4). */
    public boolean hasDefaultBos() {
        return behaviour.defaultBos();
    }

    @Override
    public String toString() {
        return "PreTokenizer[" + name + "]";
    }
}

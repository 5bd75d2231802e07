package io.squall.functions.engine.tokenizer.core;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Splits the exact texts of special tokens out of input text before tokenization, as llama.cpp's
 * {@code tokenizer_st_partition}: the special tokens are tried longest first (by UTF-8 length, ties by
 * id), each splitting every remaining text fragment at all its occurrences, left to right. Control and
 * unknown tokens take part only when parsing special tokens; user-defined tokens always do.
 *
 * <p>A trie finds in one pass which special tokens occur in the text at all, so vocabularies with
 * thousands of special tokens cost little. Immutable and thread-safe.
 */
public final class SpecialTokenSplitter {

    /** A piece of the input: a special token, or the text {@code [start, end)} to tokenize. */
    public record Fragment(int token, int start, int end) {

        static Fragment text(int start, int end) {
            return new Fragment(-1, start, end);
        }

        public boolean isToken() {
            return token >= 0;
        }
    }

    private static final class Node {
        final Map<Character, Node> children = new HashMap<>(4);
        int token = -1;
    }

    private final TokenTable table;
    private final Node root = new Node();
    /** Rank of each special token in the splitting order; -1 for tokens that never split. */
    private final int[] rank;

    public SpecialTokenSplitter(TokenTable table) {
        this.table = table;
        List<Integer> special = new ArrayList<>();
        for (int id = 0; id < table.size(); id++) {
            if (table.is(id, TokenAttributes.SPLIT_FROM_TEXT)) {
                special.add(id);
            }
        }
        special.sort(Comparator.<Integer>comparingInt(id -> -table.text(id).getBytes(StandardCharsets.UTF_8).length)
                .thenComparingInt(id -> id));
        rank = new int[table.size()];
        java.util.Arrays.fill(rank, -1);
        for (int i = 0; i < special.size(); i++) {
            int id = special.get(i);
            rank[id] = i;
            Node node = root;
            String text = table.text(id);
            for (int c = 0; c < text.length(); c++) {
                node = node.children.computeIfAbsent(text.charAt(c), k -> new Node());
            }
            node.token = id;
        }
    }

    /**
     * The fragments of {@code text}, in order.
     *
     * @param parseSpecial whether control and unknown tokens are split out too
     */
    public List<Fragment> split(String text, boolean parseSpecial) {
        List<Fragment> fragments = new ArrayList<>();
        if (text.isEmpty()) {
            return fragments;
        }
        fragments.add(Fragment.text(0, text.length()));
        for (int token : occurringTokens(text, parseSpecial)) {
            fragments = splitOn(text, fragments, token);
        }
        return fragments;
    }

    /** The special tokens that occur in {@code text} and may split it, in splitting order. */
    private List<Integer> occurringTokens(String text, boolean parseSpecial) {
        List<Integer> found = new ArrayList<>();
        boolean[] seen = new boolean[rank.length];
        for (int start = 0; start < text.length(); start++) {
            Node node = root;
            for (int i = start; i < text.length(); i++) {
                node = node.children.get(text.charAt(i));
                if (node == null) {
                    break;
                }
                int token = node.token;
                if (token >= 0 && !seen[token]
                        && (parseSpecial || !table.is(token, TokenAttributes.HIDDEN_UNLESS_SPECIAL))) {
                    seen[token] = true;
                    found.add(token);
                }
            }
        }
        found.sort(Comparator.comparingInt(token -> rank[token]));
        return found;
    }

    private List<Fragment> splitOn(String text, List<Fragment> fragments, int token) {
        String special = table.text(token);
        List<Fragment> result = new ArrayList<>(fragments.size() + 2);
        for (Fragment fragment : fragments) {
            if (fragment.isToken()) {
                result.add(fragment);
                continue;
            }
            int pos = fragment.start();
            while (true) {
                int match = text.indexOf(special, pos);
                if (match < 0 || match + special.length() > fragment.end()) {
                    break;
                }
                if (match > pos) {
                    result.add(Fragment.text(pos, match));
                }
                result.add(new Fragment(token, match, match + special.length()));
                pos = match + special.length();
            }
            if (pos < fragment.end()) {
                result.add(Fragment.text(pos, fragment.end()));
            }
        }
        return result;
    }
}

package io.squall.functions.engine.tokenizer.pretokenize;

import io.squall.functions.engine.tokenizer.core.IntList;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A splitter for any pre-tokenizer regex, as llama.cpp's {@code unicode_regex_split_stl}: the matches
 * and the text between them become pieces.
 *
 * <p>A regex that uses Unicode categories ({@code \p{L}}, {@code \p{N}}, {@code \p{P}},
 * {@code \p{M}}, {@code \p{S}} and the letter sub-categories, which llama.cpp treats as {@code \p{L}})
 * runs on the collapsed text, with each category rewritten to its stand-in character plus its ASCII
 * members as llama.cpp lists them (note that {@code ~} is not a symbol there). Other regexes run on the
 * text itself with non-ASCII whitespace replaced by a vertical tab. In both, {@code \s} means ASCII
 * whitespace, as in C++'s {@code std::regex}. Thread-safe: each call uses its own {@link Matcher}.
 */
final class RegexSplitter implements Splitter {

    private record Category(char standIn, String asciiMembers) {
    }

    private static final Category NUMBER = new Category(SplitText.COLLAPSED_NUMBER, "0-9");
    private static final Category LETTER = new Category(SplitText.COLLAPSED_LETTER, "A-Za-z");
    private static final Map<String, Category> CATEGORIES = Map.of(
            "\\p{N}", NUMBER,
            "\\p{L}", LETTER,
            "\\p{P}", new Category(SplitText.COLLAPSED_PUNCTUATION, "!-#%-*,-/:-;?-@\\[-\\]_\\{\\}"),
            "\\p{M}", new Category(SplitText.COLLAPSED_MARK, ""),
            "\\p{S}", new Category(SplitText.COLLAPSED_SYMBOL, "\\$\\+<->^`\\|"),
            "\\p{Lu}", LETTER,
            "\\p{Ll}", LETTER,
            "\\p{Lt}", LETTER,
            "\\p{Lm}", LETTER,
            "\\p{Lo}", LETTER);

    private final Pattern pattern;
    private final boolean collapsed;

    /**
     * @param regex a pre-tokenizer regex as llama.cpp spells it
     * @throws IllegalArgumentException if it mixes Unicode categories with non-ASCII characters
     *                                  (llama.cpp rejects that too) or does not compile
     */
    RegexSplitter(String regex) {
        collapsed = CATEGORIES.keySet().stream().anyMatch(regex::contains);
        if (collapsed && !regex.chars().allMatch(c -> c < 0x80)) {
            throw new IllegalArgumentException(
                    "pre-tokenizer regex mixes Unicode categories and non-ASCII characters: " + regex);
        }
        pattern = Pattern.compile(collapsed ? collapse(regex) : regex);
    }

    /** llama.cpp's rewrite of {@code \p{X}} into the collapsed stand-in plus ASCII members. */
    static String collapse(String regex) {
        StringBuilder out = new StringBuilder(regex.length() * 2);
        boolean inside = false;
        for (int i = 0; i < regex.length(); i++) {
            char c = regex.charAt(i);
            if (c == '[' && (i == 0 || regex.charAt(i - 1) != '\\')) {
                out.append('[');
                inside = true;
                continue;
            }
            if (inside && c == ']' && regex.charAt(i - 1) != '\\') {
                out.append(']');
                inside = false;
                continue;
            }
            if (c == '\\' && i + 3 < regex.length() && regex.charAt(i + 1) == 'p' && regex.charAt(i + 2) == '{') {
                int close = regex.indexOf('}', i + 3);
                Category category = close >= 0 && close <= i + 10 ? CATEGORIES.get(regex.substring(i, close + 1)) : null;
                if (category != null) {
                    out.append(inside ? "" : "[").append(category.standIn()).append(category.asciiMembers())
                            .append(inside ? "" : "]");
                    i = close;
                    continue;
                }
            }
            out.append(c);
        }
        return out.toString();
    }

    @Override
    public void split(SplitText text, IntList fragments, IntList out) {
        Matcher matcher = pattern.matcher(collapsed ? text.collapsed() : text.wide());
        int from = 0;
        for (int f = 0; f < fragments.size(); f++) {
            int to = from + fragments.get(f);
            matcher.region(charIndex(text, from), charIndex(text, to));
            int previous = from;
            while (matcher.find()) {
                int start = codePointIndex(text, matcher.start());
                int end = codePointIndex(text, matcher.end());
                if (start > previous) {
                    out.add(start - previous);
                }
                if (end > start) {
                    out.add(end - start);
                }
                previous = end;
            }
            if (to > previous) {
                out.add(to - previous);
            }
            from = to;
        }
    }

    private int charIndex(SplitText text, int codePoint) {
        return collapsed ? codePoint : text.wideCharIndex(codePoint);
    }

    private int codePointIndex(SplitText text, int charIndex) {
        return collapsed ? charIndex : text.wideCodePointIndex(charIndex);
    }
}

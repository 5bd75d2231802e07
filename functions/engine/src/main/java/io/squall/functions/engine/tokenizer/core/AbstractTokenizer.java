package io.squall.functions.engine.tokenizer.core;

import io.squall.functions.engine.tokenizer.DecodeOptions;
import io.squall.functions.engine.tokenizer.EncodeOptions;
import io.squall.functions.engine.tokenizer.SpecialTokens;
import io.squall.functions.engine.tokenizer.Tokenizer;
import io.squall.functions.engine.tokenizer.Vocabulary;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * The pipeline every model shares, as llama.cpp's {@code llama_vocab::impl::tokenize} and
 * {@code detokenize}: BOS, special tokens split out of the text, each text fragment tokenized by the
 * model ({@link #encodeText}), EOS; decoding joins token pieces, applies the leading-space rule and
 * the model's space clean-up.
 */
public abstract class AbstractTokenizer implements Tokenizer {

    protected final Vocabulary vocabulary;
    protected final TokenTable table;
    private final SpecialTokenSplitter splitter;
    private final boolean cleanSpaces;

    /**
     * @param cleanSpaces whether decoding removes spaces before punctuation (llama.cpp's
     *                    {@code clean_spaces}, set per pre-tokenizer)
     */
    protected AbstractTokenizer(Vocabulary vocabulary, TokenTable table, boolean cleanSpaces) {
        this.vocabulary = vocabulary;
        this.table = table;
        this.splitter = new SpecialTokenSplitter(table);
        this.cleanSpaces = cleanSpaces;
    }

    /**
     * Appends the ids of one text fragment (no special tokens in it) to {@code out}.
     *
     * @param afterSpecial whether the fragment starts the input or follows a special token
     *                     (SentencePiece adds its space prefix there)
     */
    protected abstract void encodeText(String text, boolean afterSpecial, IntList out);

    @Override
    public final int[] encode(String text, EncodeOptions options) {
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(options, "options");
        Vocabulary.Flags flags = vocabulary.flags();
        IntList out = new IntList(Math.max(16, text.length() / 3));
        if (options.addSpecial() && flags.addBos()) {
            out.add(table.specials().bos());
        }
        boolean afterSpecial = true;
        for (SpecialTokenSplitter.Fragment fragment : splitter.split(text, options.parseSpecial())) {
            if (fragment.isToken()) {
                out.add(fragment.token());
                afterSpecial = true;
            } else {
                encodeText(text.substring(fragment.start(), fragment.end()), afterSpecial, out);
                afterSpecial = false;
            }
        }
        if (options.addSpecial() && flags.addEos()) {
            out.add(table.specials().eos());
        }
        return out.toArray();
    }

    @Override
    public final String decode(int[] ids, DecodeOptions options) {
        Objects.requireNonNull(ids, "ids");
        Objects.requireNonNull(options, "options");
        byte[] buffer = new byte[64];
        int length = 0;
        for (int i = 0; i < ids.length; i++) {
            byte[] piece = table.piece(ids[i], options.renderSpecial());
            int skip = i == 0 && stripsLeadingSpace(options) && piece.length > 0 && piece[0] == ' ' ? 1 : 0;
            if (length + piece.length > buffer.length) {
                buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, length + piece.length));
            }
            System.arraycopy(piece, skip, buffer, length, piece.length - skip);
            length += piece.length - skip;
        }
        if (cleanSpaces) {
            length = SpaceCleaner.clean(buffer, length);
        }
        return new String(buffer, 0, length, StandardCharsets.UTF_8);
    }

    @Override
    public boolean stripsLeadingSpace(DecodeOptions options) {
        return !options.keepLeadingSpace() && vocabulary.flags().addSpacePrefix();
    }

    @Override
    public Vocabulary vocabulary() {
        return vocabulary;
    }

    @Override
    public int vocabularySize() {
        return table.size();
    }

    @Override
    public byte[] tokenBytes(int id) {
        return table.piece(id, true).clone();
    }

    @Override
    public byte[] tokenBytes(int id, DecodeOptions options) {
        return table.piece(id, options.renderSpecial()).clone();
    }

    @Override
    public String tokenText(int id) {
        return table.text(id);
    }

    @Override
    public SpecialTokens specialTokens() {
        return table.specials();
    }

    @Override
    public boolean isControl(int id) {
        return table.is(id, TokenAttributes.CONTROL);
    }

    @Override
    public boolean isEndOfGeneration(int id) {
        return table.isEndOfGeneration(id);
    }

    @Override
    public int[] endOfGenerationIds() {
        return table.endOfGeneration();
    }
}

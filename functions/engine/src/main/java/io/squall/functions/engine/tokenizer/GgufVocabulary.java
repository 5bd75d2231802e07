package io.squall.functions.engine.tokenizer;

import io.squall.functions.engine.gguf.GgufMetadata;
import io.squall.functions.engine.tokenizer.SpecialTokens.Role;
import io.squall.functions.engine.tokenizer.pretokenize.PreTokenizer;
import io.squall.functions.engine.tokenizer.pretokenize.PreTokenizers;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;

/**
 * Reads a {@link Vocabulary} from GGUF metadata the way llama.cpp's {@code llama_vocab::impl::load}
 * does, defaults included:
 * <ul>
 *   <li>SentencePiece: BOS 1, EOS 2, unknown 0; adds BOS and a space prefix;</li>
 *   <li>byte-level BPE: BOS and EOS 11 (GLM-4: no BOS), no unknown; adds BOS only for the
 *       pre-tokenizers that ask for it (Llama 3, Tekken, Chameleon); no space prefix;</li>
 *   <li>declared ids outside the vocabulary are ignored (the default stays), defaults outside the
 *       vocabulary are dropped;</li>
 *   <li>{@code add_bos_token}, {@code add_eos_token}, {@code add_space_prefix} override the defaults.</li>
 * </ul>
 */
public final class GgufVocabulary {

    static final String MODEL = "tokenizer.ggml.model";
    static final String PRE = "tokenizer.ggml.pre";
    static final String TOKENS = "tokenizer.ggml.tokens";
    static final String SCORES = "tokenizer.ggml.scores";
    static final String TOKEN_TYPES = "tokenizer.ggml.token_type";
    static final String MERGES = "tokenizer.ggml.merges";
    static final String ADD_BOS = "tokenizer.ggml.add_bos_token";
    static final String ADD_EOS = "tokenizer.ggml.add_eos_token";
    static final String ADD_SPACE_PREFIX = "tokenizer.ggml.add_space_prefix";

    /** Older keys for the FIM roles; llama.cpp reads them after the current ones, so they win. */
    private static final Map<String, Role> DEPRECATED_KEYS = Map.of(
            "tokenizer.ggml.prefix_token_id", Role.FIM_PREFIX,
            "tokenizer.ggml.suffix_token_id", Role.FIM_SUFFIX,
            "tokenizer.ggml.middle_token_id", Role.FIM_MIDDLE);

    private GgufVocabulary() {
    }

    /**
     * The vocabulary described by {@code metadata}.
     *
     * @throws IllegalArgumentException if a required key is missing or has the wrong type, the model or
     *                                  pre-tokenizer is not supported, or the arrays disagree in length
     */
    public static Vocabulary read(GgufMetadata metadata) {
        TokenizerModel model = TokenizerModel.fromGgufName(metadata.getString(MODEL));
        String pre = metadata.findString(PRE).filter(name -> !name.isEmpty()).orElse("default");
        String[] tokens = metadata.getStringArray(TOKENS);
        int n = tokens.length;
        float[] scores = metadata.contains(SCORES) ? scores(metadata) : new float[n];
        int[] types = metadata.contains(TOKEN_TYPES) ? metadata.getIntArray(TOKEN_TYPES) : normalTypes(n);

        String[] merges;
        Map<Role, Integer> defaults = new EnumMap<>(Role.class);
        Vocabulary.Flags flags;
        if (model == TokenizerModel.SENTENCEPIECE) {
            merges = new String[0];
            defaults.put(Role.BOS, 1);
            defaults.put(Role.EOS, 2);
            defaults.put(Role.UNKNOWN, 0);
            flags = new Vocabulary.Flags(true, false, true);
        } else {
            if (!metadata.contains(MERGES)) {
                throw new IllegalArgumentException("byte-level BPE vocabulary has no merges (" + MERGES + ")");
            }
            merges = metadata.getStringArray(MERGES);
            PreTokenizer preTokenizer = PreTokenizers.forName(pre);
            if (preTokenizer.hasDefaultBos()) {
                defaults.put(Role.BOS, 11);
            }
            defaults.put(Role.EOS, 11);
            flags = new Vocabulary.Flags(preTokenizer.addBosByDefault(), false, false);
        }
        defaults.values().removeIf(id -> id >= n);

        SpecialTokens specials = SpecialTokens.of(defaults);
        for (Role role : Role.values()) {
            specials = declared(metadata, role.ggufKey(), role, specials, n);
        }
        for (Map.Entry<String, Role> deprecated : DEPRECATED_KEYS.entrySet()) {
            specials = declared(metadata, deprecated.getKey(), deprecated.getValue(), specials, n);
        }
        flags = new Vocabulary.Flags(
                metadata.getBoolean(ADD_BOS, flags.addBos()),
                metadata.getBoolean(ADD_EOS, flags.addEos()),
                metadata.getBoolean(ADD_SPACE_PREFIX, flags.addSpacePrefix()));
        return new Vocabulary(model, pre, tokens, scores, types, merges, specials, flags);
    }

    private static SpecialTokens declared(GgufMetadata metadata, String key, Role role, SpecialTokens specials, int n) {
        if (!metadata.contains(key)) {
            return specials;
        }
        long id = metadata.getLong(key);
        return id >= 0 && id < n ? specials.with(role, (int) id) : specials;
    }

    /** Scores are float32 in practice; llama.cpp also accepts int32. */
    private static float[] scores(GgufMetadata metadata) {
        if (metadata.get(SCORES) instanceof int[] ints) {
            float[] scores = new float[ints.length];
            for (int i = 0; i < ints.length; i++) {
                scores[i] = ints[i];
            }
            return scores;
        }
        return metadata.getFloatArray(SCORES);
    }

    private static int[] normalTypes(int n) {
        int[] types = new int[n];
        Arrays.fill(types, TokenType.NORMAL.code());
        return types;
    }
}

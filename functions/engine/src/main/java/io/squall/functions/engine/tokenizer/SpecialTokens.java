package io.squall.functions.engine.tokenizer;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;

/**
 * The ids a vocabulary declares for its special roles (BOS, EOS, ...), {@link #NONE} where a role
 * has no token. Immutable.
 *
 * <p>These are the declared ids, with llama.cpp's defaults for keys the file leaves out; a
 * {@link Tokenizer} may fill in roles it recognises by token text (EOT, EOM, FIM), see
 * {@link Tokenizer#specialTokens()}.
 */
public final class SpecialTokens {

    /** The id of a role that has no token. */
    public static final int NONE = -1;

    /** A role a token can play, with the GGUF key that declares it. */
    public enum Role {
        BOS("tokenizer.ggml.bos_token_id"),
        EOS("tokenizer.ggml.eos_token_id"),
        /** End of turn, such as {@code <|eot_id|>} or {@code <|im_end|>}. */
        EOT("tokenizer.ggml.eot_token_id"),
        /** End of message (tool call pending), such as {@code <|eom_id|>}. */
        EOM("tokenizer.ggml.eom_token_id"),
        UNKNOWN("tokenizer.ggml.unknown_token_id"),
        PADDING("tokenizer.ggml.padding_token_id"),
        FIM_PREFIX("tokenizer.ggml.fim_pre_token_id"),
        FIM_SUFFIX("tokenizer.ggml.fim_suf_token_id"),
        FIM_MIDDLE("tokenizer.ggml.fim_mid_token_id"),
        FIM_PAD("tokenizer.ggml.fim_pad_token_id"),
        FIM_REPO("tokenizer.ggml.fim_rep_token_id"),
        FIM_SEPARATOR("tokenizer.ggml.fim_sep_token_id");

        private final String ggufKey;

        Role(String ggufKey) {
            this.ggufKey = ggufKey;
        }

        /** The GGUF metadata key holding this role's id. */
        public String ggufKey() {
            return ggufKey;
        }
    }

    private static final Role[] ROLES = Role.values();

    private final int[] ids;

    private SpecialTokens(int[] ids) {
        this.ids = ids;
    }

    /** No token for any role. */
    public static SpecialTokens none() {
        int[] ids = new int[ROLES.length];
        Arrays.fill(ids, NONE);
        return new SpecialTokens(ids);
    }

    /** The given roles set, every other role {@link #NONE}. */
    public static SpecialTokens of(Map<Role, Integer> roles) {
        SpecialTokens result = none();
        roles.forEach((role, id) -> result.ids[role.ordinal()] = checkId(role, id));
        return result;
    }

    /** A copy with {@code role} set to {@code id} ({@link #NONE} clears it). */
    public SpecialTokens with(Role role, int id) {
        int[] copy = ids.clone();
        copy[role.ordinal()] = checkId(role, id);
        return new SpecialTokens(copy);
    }

    /** The id of {@code role}, or {@link #NONE}. */
    public int id(Role role) {
        return ids[role.ordinal()];
    }

    /** Whether {@code role} has a token. */
    public boolean has(Role role) {
        return ids[role.ordinal()] != NONE;
    }

    public int bos() {
        return id(Role.BOS);
    }

    public int eos() {
        return id(Role.EOS);
    }

    public int eot() {
        return id(Role.EOT);
    }

    public int eom() {
        return id(Role.EOM);
    }

    public int unknown() {
        return id(Role.UNKNOWN);
    }

    /** The roles that have a token, in declaration order. */
    public Map<Role, Integer> asMap() {
        Map<Role, Integer> map = new EnumMap<>(Role.class);
        for (Role role : ROLES) {
            if (has(role)) {
                map.put(role, id(role));
            }
        }
        return map;
    }

    private static int checkId(Role role, Integer id) {
        if (id == null || id < NONE) {
            throw new IllegalArgumentException("invalid token id " + id + " for special role " + role);
        }
        return id;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof SpecialTokens that && Arrays.equals(ids, that.ids);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(ids);
    }

    @Override
    public String toString() {
        return "SpecialTokens" + asMap();
    }
}

package io.squall.functions.engine.tokenizer.core;

import io.squall.functions.engine.tokenizer.SpecialTokens;
import io.squall.functions.engine.tokenizer.SpecialTokens.Role;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * llama.cpp's recognition of special tokens by their text ({@code llama_vocab::impl::load}): EOT,
 * EOM and FIM tokens the file does not declare, the end-of-generation set, and the attribute fixes
 * that go with them (such tokens become control tokens; control tokens named "unused" become unused).
 *
 * <p>Where several tokens match one undeclared role, llama.cpp takes whichever its hash map yields
 * first; Squall takes the lowest id, which is deterministic.
 */
final class SpecialTokenInference {

    private static final Map<Role, List<String>> ROLE_TEXTS = Map.of(
            Role.EOT, List.of("<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>",
                    "<|end_of_text|>", "<EOT>", "_<EOT>", "[EOT]", "<｜end▁of▁sentence｜>", "<end_of_utterance>"),
            Role.EOM, List.of("<|eom_id|>"),
            Role.FIM_PREFIX, List.of("<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>", "<｜fim▁begin｜>", "<PRE>",
                    "▁<PRE>", "<|code_prefix|>", "<|prefix|>"),
            Role.FIM_SUFFIX, List.of("<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>", "<｜fim▁hole｜>", "<SUF>",
                    "▁<SUF>", "<|code_suffix|>", "<|suffix|>"),
            Role.FIM_MIDDLE, List.of("<|fim_middle|>", "<fim-middle>", "<fim_middle>", "<｜fim▁end｜>", "<MID>",
                    "▁<MID>", "<|code_middle|>", "<|middle|>"),
            Role.FIM_PAD, List.of("<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"),
            Role.FIM_REPO, List.of("<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"),
            Role.FIM_SEPARATOR, List.of("<|file_sep|>"));

    /** Roles inferred in this order, as llama.cpp checks them. */
    private static final List<Role> INFERRED_ROLES = List.of(Role.EOT, Role.EOM, Role.FIM_PREFIX, Role.FIM_SUFFIX,
            Role.FIM_MIDDLE, Role.FIM_PAD, Role.FIM_REPO, Role.FIM_SEPARATOR);

    private static final Set<String> END_OF_GENERATION_TEXTS = Set.of("<|eot_id|>", "<|im_end|>", "<|end|>",
            "<|return|>", "<|call|>", "<|flush|>", "<|calls|>", "<end_of_turn>", "<|endoftext|>", "</s>",
            "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]", "<|end_of_text|>", "<end_of_utterance>", "<eos>",
            "<turn|>", "<|tool_response>", "<｜end▁of▁sentence｜>", "[e~[");

    /** gpt-oss tokens llama.cpp always renders. */
    private static final Set<String> ALWAYS_RENDERED = Set.of("<|channel|>", "<|message|>", "<|start|>", "<|constrain|>");

    /** The outcome: the special ids with inferred roles filled in, and the end-of-generation ids. */
    record Result(SpecialTokens specials, int[] endOfGeneration) {
    }

    private SpecialTokenInference() {
    }

    /** Infers roles and end-of-generation ids; updates {@code attributes} in place. */
    static Result infer(String[] texts, int[] attributes, SpecialTokens declared, Map<String, Integer> ids) {
        SpecialTokens specials = declared;
        for (Role role : INFERRED_ROLES) {
            if (specials.has(role)) {
                continue;
            }
            int found = lowestId(ROLE_TEXTS.get(role), ids);
            if (found != SpecialTokens.NONE) {
                specials = specials.with(role, found);
                attributes[found] |= TokenAttributes.CONTROL;
            }
        }
        for (int id = 0; id < texts.length; id++) {
            if ((attributes[id] & TokenAttributes.CONTROL) != 0 && texts[id].contains("unused")) {
                attributes[id] |= TokenAttributes.UNUSED;
            }
        }

        TreeSet<Integer> eog = new TreeSet<>();
        for (Role role : List.of(Role.FIM_PAD, Role.FIM_REPO, Role.FIM_SEPARATOR)) {
            if (specials.has(role)) {
                eog.add(specials.id(role));
            }
        }
        for (int id = 0; id < texts.length; id++) {
            if (END_OF_GENERATION_TEXTS.contains(texts[id])) {
                eog.add(id);
                attributes[id] |= TokenAttributes.CONTROL;
            }
        }
        for (int id = 0; id < texts.length; id++) {
            if (ALWAYS_RENDERED.contains(texts[id])) {
                attributes[id] = TokenAttributes.USER_DEFINED;
            }
        }
        for (Role role : List.of(Role.EOS, Role.EOT, Role.EOM)) {
            if (specials.has(role)) {
                eog.add(specials.id(role));
            }
        }
        dropHarmonyEnd(texts, attributes, eog);
        dropClosingS(texts, attributes, eog);
        return new Result(specials, eog.stream().mapToInt(Integer::intValue).toArray());
    }

    /** o200k_harmony and solar-open: {@code <|end|>} ends a message, not the generation. */
    private static void dropHarmonyEnd(String[] texts, int[] attributes, TreeSet<Integer> eog) {
        boolean hasReturn = false;
        boolean hasCall = false;
        boolean hasFlush = false;
        int end = SpecialTokens.NONE;
        for (int id : eog) {
            switch (texts[id]) {
                case "<|return|>" -> hasReturn = true;
                case "<|call|>", "<|calls|>" -> hasCall = true;
                case "<|flush|>" -> hasFlush = true;
                case "<|end|>" -> end = id;
                default -> { }
            }
        }
        if (end != SpecialTokens.NONE && hasCall && (hasReturn || hasFlush)) {
            eog.remove(end);
            attributes[end] = TokenAttributes.USER_DEFINED;
        }
    }

    /** Gemma 4 and PaddleOCR: {@code </s>} is ordinary text when {@code <|tool_response>} exists. */
    private static void dropClosingS(String[] texts, int[] attributes, TreeSet<Integer> eog) {
        boolean hasToolResponse = false;
        int closingS = SpecialTokens.NONE;
        for (int id : eog) {
            if (texts[id].equals("<|tool_response>")) {
                hasToolResponse = true;
            } else if (texts[id].equals("</s>")) {
                closingS = id;
            }
        }
        if (hasToolResponse && closingS != SpecialTokens.NONE) {
            eog.remove(closingS);
            attributes[closingS] = TokenAttributes.NORMAL;
        }
    }

    private static int lowestId(List<String> candidates, Map<String, Integer> ids) {
        int best = SpecialTokens.NONE;
        for (String text : candidates) {
            Integer id = ids.get(text);
            if (id != null && (best == SpecialTokens.NONE || id < best)) {
                best = id;
            }
        }
        return best;
    }
}

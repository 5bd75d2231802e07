package io.squall.functions.engine.model;

import io.squall.functions.engine.gguf.GgufMetadata;
import io.squall.functions.engine.gguf.GgufValue;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The vocabulary of models written without {@code --vocab-from}: GPT-2 byte-level BPE over the 256
 * byte symbols (so every text encodes, one token per byte), no merges, plus ChatML's special tokens
 * and a ChatML chat template.
 */
final class ByteLevelVocabulary {

    static final String END_OF_TEXT = "<|endoftext|>";
    static final String IM_START = "<|im_start|>";
    static final String IM_END = "<|im_end|>";
    private static final int TOKEN_NORMAL = 1;
    private static final int TOKEN_CONTROL = 3;
    private static final String CHATML_TEMPLATE = """
            {%- for message in messages -%}
            {{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' -}}
            {%- endfor -%}
            {%- if add_generation_prompt -%}
            {{- '<|im_start|>assistant\\n' -}}
            {%- endif -%}
            """;

    private ByteLevelVocabulary() {
    }

    static GgufMetadata metadata() {
        String[] tokens = new String[256 + 3];
        int[] types = new int[tokens.length];
        for (int b = 0; b < 256; b++) {
            tokens[b] = byteSymbol(b);
            types[b] = TOKEN_NORMAL;
        }
        tokens[256] = END_OF_TEXT;
        tokens[257] = IM_START;
        tokens[258] = IM_END;
        types[256] = types[257] = types[258] = TOKEN_CONTROL;
        Map<String, GgufValue> entries = new LinkedHashMap<>();
        entries.put("tokenizer.ggml.model", GgufValue.ofString("gpt2"));
        entries.put("tokenizer.ggml.pre", GgufValue.ofString("gpt-2"));
        entries.put("tokenizer.ggml.tokens", GgufValue.ofStrings(tokens));
        entries.put("tokenizer.ggml.token_type", GgufValue.ofInts(types));
        entries.put("tokenizer.ggml.merges", GgufValue.ofStrings(new String[0]));
        entries.put("tokenizer.ggml.bos_token_id", GgufValue.ofUint32(256));
        entries.put("tokenizer.ggml.eos_token_id", GgufValue.ofUint32(258));
        entries.put("tokenizer.ggml.padding_token_id", GgufValue.ofUint32(256));
        entries.put("tokenizer.ggml.add_bos_token", GgufValue.ofBool(false));
        entries.put("tokenizer.chat_template", GgufValue.ofString(CHATML_TEMPLATE));
        return new GgufMetadata(entries);
    }

    /**
     * GPT-2's printable stand-in for byte {@code b}: printable Latin-1 bytes stand for themselves, the
     * others map to U+0100 onwards in byte order.
     */
    static String byteSymbol(int b) {
        if ((b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF)) {
            return String.valueOf((char) b);
        }
        int n = 0;
        for (int other = 0; other < b; other++) {
            if (!((other >= '!' && other <= '~') || (other >= 0xA1 && other <= 0xAC) || (other >= 0xAE && other <= 0xFF))) {
                n++;
            }
        }
        return String.valueOf((char) (256 + n));
    }
}

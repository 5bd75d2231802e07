package io.squall.functions.engine.tokenizer.pretokenize;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The pre-tokenizers llama.cpp knows, by {@code tokenizer.ggml.pre} name, with its regexes and flags
 * ({@code llm_tokenizer_bpe} and {@code llama_vocab::impl::load}).
 *
 * <p>Not implemented (they need more than a regex): {@code kimi-k2}, {@code afmoe}, {@code gemma4},
 * {@code sarvam-moe}, {@code whitespace}, {@code superbpe}, {@code tiny_aya}, {@code jais-2},
 * {@code spark2_5}, {@code youtu}, {@code granite-embed-*}; they are rejected with a clear error.
 */
public final class PreTokenizers {

    /** Flags llama.cpp sets per pre-tokenizer. */
    record Behaviour(boolean cleanSpaces, boolean ignoreMerges, boolean addBos, boolean defaultBos) {
    }

    private static final String CONTRACTIONS = "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])";

    private static final List<String> GPT2 = List.of(Gpt2Splitter.PATTERN);
    private static final List<String> LLAMA3 = List.of(Llama3Splitter.PATTERN_ADAPTED);
    private static final List<String> DEFAULT = List.of(
            "[\\p{P}\\$\\+<=>\\^~\\|]+", Gpt2Splitter.PATTERN, "\\p{N}+", "[0-9][0-9][0-9]");
    private static final List<String> FALCON = List.of(
            "[\\p{P}\\$\\+<=>\\^~\\|`]+", Gpt2Splitter.PATTERN, "[0-9][0-9][0-9]");
    private static final List<String> STARCODER = List.of("\\p{N}", Gpt2Splitter.PATTERN);
    private static final List<String> DEEPSEEK_LLM = List.of(
            "[\r\n]",
            // the cased letters (L&) of Unicode, spelled with escapes: NFC would fold some (U+1FD3 → U+0390)
            "\\s?["
                    + "A-Za-z\\x{B5}\\x{C0}-\\x{D6}\\x{D8}-\\x{F6}\\x{F8}-\\x{1BA}\\x{1BC}-\\x{1BF}"
                    + "\\x{1C4}-\\x{293}\\x{295}-\\x{2AF}\\x{370}-\\x{373}\\x{376}-\\x{377}\\x{37B}-\\x{37D}"
                    + "\\x{37F}\\x{386}\\x{388}-\\x{38A}\\x{38C}\\x{38E}-\\x{3A1}\\x{3A3}-\\x{3F5}"
                    + "\\x{3F7}-\\x{481}\\x{48A}-\\x{52F}\\x{531}-\\x{556}\\x{10A0}-\\x{10C5}\\x{13A0}-\\x{13F5}"
                    + "\\x{13F8}-\\x{13FD}\\x{1C90}-\\x{1CBA}\\x{1CBD}-\\x{1CBF}\\x{1D00}-\\x{1D2B}"
                    + "\\x{1D6B}-\\x{1D77}\\x{1D79}-\\x{1D9A}\\x{1E00}-\\x{1F15}\\x{1F18}-\\x{1F1D}"
                    + "\\x{1F20}-\\x{1F45}\\x{1F48}-\\x{1F4D}\\x{1F50}-\\x{1F57}\\x{1F59}\\x{1F5B}\\x{1F5D}"
                    + "\\x{1F5F}-\\x{1F7D}\\x{1F80}-\\x{1FB4}\\x{1FB6}-\\x{1FBC}\\x{1FBE}\\x{1FC2}-\\x{1FC4}"
                    + "\\x{1FC6}-\\x{1FCC}\\x{1FD0}-\\x{1FD3}\\x{1FD6}-\\x{1FDB}\\x{1FE0}-\\x{1FEC}"
                    + "\\x{1FF2}-\\x{1FF4}\\x{1FF6}-\\x{1FFC}\\x{2102}\\x{2107}\\x{210A}-\\x{2113}\\x{2115}"
                    + "\\x{2119}-\\x{211D}\\x{2124}\\x{2126}\\x{2128}\\x{212A}-\\x{212D}\\x{212F}-\\x{2134}"
                    + "\\x{2139}\\x{213C}-\\x{213F}\\x{2145}-\\x{2149}\\x{214E}\\x{2183}-\\x{2184}"
                    + "\\x{2C00}-\\x{2C7B}\\x{2C7E}-\\x{2CE4}\\x{2CEB}-\\x{2CEE}\\x{2CF2}-\\x{2CF3}"
                    + "\\x{A640}-\\x{A66D}\\x{A680}-\\x{A69B}\\x{A722}-\\x{A76F}\\x{A771}-\\x{A787}"
                    + "\\x{A78B}-\\x{A78E}\\x{AB70}-\\x{ABBF}\\x{FB00}-\\x{FB06}\\x{FB13}-\\x{FB17}"
                    + "\\x{FF21}-\\x{FF3A}\\x{FF41}-\\x{FF5A}\\x{10400}-\\x{1044F}\\x{104B0}-\\x{104D3}"
                    + "\\x{104D8}-\\x{104FB}\\x{10C80}-\\x{10CB2}\\x{10CC0}-\\x{10CF2}\\x{118A0}-\\x{118DF}"
                    + "\\x{1E900}-\\x{1E943}" + "]+",
            "\\s?[!-/:-~！-／：-～‘-‟　-。]+",
            // llama.cpp writes "\\s+$"; \z is the same for std::regex and cannot stop before a final line break in Java
            "\\s+\\z",
            "[一-龥ࠀ-一가-퟿]+",
            "\\p{N}+");
    private static final List<String> DEEPSEEK_V3 = List.of(
            "\\p{N}{1,3}",
            "[一-龥぀-ゟ゠-ヿ]+",
            "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+");
    private static final List<String> DEEPSEEK_CODER = List.of(
            "[\r\n]", "\\s?\\p{L}+", "\\s?\\p{P}+", "[一-龥ࠀ-一가-퟿]+", "\\p{N}");
    private static final String QWEN2_PATTERN = CONTRACTIONS
            + "|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
    private static final List<String> QWEN2 = List.of(QWEN2_PATTERN);
    private static final List<String> QWEN35 = List.of(CONTRACTIONS
            + "|[^\\r\\n\\p{L}\\p{N}]?[\\p{L}\\p{M}]+|\\p{N}| ?[^\\s\\p{L}\\p{M}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+");
    private static final List<String> PORO = List.of(" ?[^(\\s|.,!?…。，、।۔،)]+");
    private static final List<String> VIKING = List.of(" ?[^(\\s|.,!?…。，、।۔،)]+", "\\p{N}");
    private static final List<String> TEKKEN = List.of(
            "[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))*((?=[\\p{L}])([^A-Z]))+|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))+((?=[\\p{L}])([^A-Z]))*|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+");
    private static final List<String> CHAMELEON = List.of(
            "<sentinel:[0-9]+>", "(IMGIMG)((A|B|C|D|E|F|G|H|I){1,4})Z", "([\\t\\n]|    |  )", "\\p{N}",
            "[\\p{P}!-/:-@\\[-`{-~]", Gpt2Splitter.PATTERN);
    private static final List<String> GPT4O = List.of(
            "[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))*((?=[\\p{L}])([^A-Z]))+" + CONTRACTIONS
                    + "?|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))+((?=[\\p{L}])([^A-Z]))*" + CONTRACTIONS
                    + "?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+");
    private static final List<String> BAILINGMOE = List.of(
            "'(?:[sSdDmMtT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]|\\s+(?!\\S)|\\s+");
    private static final List<String> SEED_CODER = List.of(CONTRACTIONS
            + "|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1}| ?[^\\s\\p{L}\\p{N}\\r\\n]+|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+");
    private static final List<String> EXAONE_MOE = List.of(CONTRACTIONS
            + "|[^\\r\\n\\p{L}\\p{N}]?(?:\\p{L}\\p{M}*(?: \\p{L}\\p{M}*)*)+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]?|\\s*[\\r\\n]|\\s+(?!\\S)|\\s+");
    private static final List<String> UFAKZEKA = List.of(
            "[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+");
    private static final List<String> LAGUNA = List.of("[^\\n]+|[\\n]+", QWEN2_PATTERN);
    private static final List<String> MINICPM5 = List.of("\\p{N}{1,3}", CONTRACTIONS
            + "|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}+| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+");

    private static final Behaviour CLEAN = new Behaviour(true, false, false, true);
    private static final Behaviour RAW = new Behaviour(false, false, false, true);

    private record Entry(List<String> regexes, Behaviour behaviour) {
    }

    private static final Map<String, Entry> BY_NAME = new HashMap<>();

    static {
        register(DEFAULT, CLEAN, "default");
        register(LLAMA3, new Behaviour(true, true, true, true), "llama3", "llama-v3", "llama-bpe", "falcon3",
                "falcon-h1", "pixtral", "midm-2.0", "lfm2", "jina-v5-nano");
        register(LLAMA3, CLEAN, "dbrx", "smaug-bpe");
        register(LLAMA3, new Behaviour(true, false, false, false), "glm4", "chatglm-bpe");
        register(DEEPSEEK_LLM, RAW, "deepseek-llm");
        register(DEEPSEEK_CODER, RAW, "deepseek-coder");
        register(DEEPSEEK_V3, RAW, "deepseek-v3", "hunyuan-dense", "joyai-llm", "hy_v4");
        register(FALCON, CLEAN, "falcon");
        register(GPT2, CLEAN, "gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de",
                "a.x-4.0", "mellum", "modern-bert", "jina-v1-en", "jina-v2-code", "roberta-bpe", "mpt", "olmo",
                "jais", "exaone4");
        register(GPT2, RAW, "trillion", "granite-docling");
        register(STARCODER, CLEAN, "starcoder", "refact", "codeshell", "exaone", "minerva-7b", "mellum2");
        register(STARCODER, RAW, "command-r", "smollm");
        register(QWEN2, RAW, "qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2", "hunyuan", "grok-2", "solar-open");
        register(QWEN2, CLEAN, "stablelm2", "megrez");
        register(QWEN35, RAW, "qwen35");
        register(PORO, RAW, "poro-chat");
        register(PORO, CLEAN, "bloom", "gpt3-finnish");
        register(VIKING, RAW, "viking");
        register(TEKKEN, new Behaviour(false, true, true, true), "tekken");
        register(CHAMELEON, new Behaviour(false, false, true, true), "chameleon");
        register(GPT4O, RAW, "gpt-4o", "llama4", "kanana2", "talkie", "minimax-m2");
        register(BAILINGMOE, RAW, "bailingmoe", "bailingmoe2", "llada-moe");
        register(SEED_CODER, RAW, "seed-coder");
        register(EXAONE_MOE, CLEAN, "exaone-moe");
        register(UFAKZEKA, RAW, "ufakzeka");
        register(LAGUNA, RAW, "laguna");
        register(MINICPM5, new Behaviour(true, true, false, true), "minicpm5");
    }

    private PreTokenizers() {
    }

    private static void register(List<String> regexes, Behaviour behaviour, String... names) {
        for (String name : names) {
            if (BY_NAME.put(name, new Entry(regexes, behaviour)) != null) {
                throw new IllegalStateException("pre-tokenizer registered twice: " + name);
            }
        }
    }

    /**
     * The pre-tokenizer named {@code name} ({@code tokenizer.ggml.pre}).
     *
     * @throws IllegalArgumentException if Squall does not implement it
     */
    public static PreTokenizer forName(String name) {
        Entry entry = BY_NAME.get(name);
        if (entry == null) {
            throw new IllegalArgumentException("unsupported pre-tokenizer '" + name + "' (tokenizer.ggml.pre); supported: "
                    + names());
        }
        return new PreTokenizer(name, entry.regexes(), entry.behaviour());
    }

    /** The supported names, sorted. */
    public static Set<String> names() {
        return new TreeSet<>(BY_NAME.keySet());
    }
}

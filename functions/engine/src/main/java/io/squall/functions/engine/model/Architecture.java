package io.squall.functions.engine.model;

import java.util.Locale;

/**
 * The model families Squall runs, named as GGUF's {@code general.architecture} names them. They share
 * one decoder-only transformer and differ in the details recorded here.
 */
public enum Architecture {
    LLAMA(RopeStyle.NORMAL, false, false),
    MISTRAL(RopeStyle.NORMAL, false, false),
    QWEN2(RopeStyle.NEOX, true, false),
    QWEN3(RopeStyle.NEOX, false, true);

    /** How a head's dimensions pair up for rotation. */
    public enum RopeStyle {
        /** Adjacent pairs (2i, 2i+1): llama.cpp's "normal" rope; GGUF converters permute Q/K to fit it. */
        NORMAL,
        /** Pairs (i, i + d/2), as in GPT-NeoX and the Hugging Face Qwen models. */
        NEOX
    }

    private final RopeStyle ropeStyle;
    private final boolean qkvBias;
    private final boolean qkNorm;

    Architecture(RopeStyle ropeStyle, boolean qkvBias, boolean qkNorm) {
        this.ropeStyle = ropeStyle;
        this.qkvBias = qkvBias;
        this.qkNorm = qkNorm;
    }

    /** The name used as the prefix of this architecture's GGUF metadata keys. */
    public String ggufName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public RopeStyle ropeStyle() {
        return ropeStyle;
    }

    /** Whether the Q, K and V projections carry a bias. */
    public boolean hasQkvBias() {
        return qkvBias;
    }

    /** Whether each Q and K head is RMS-normalised before rope. */
    public boolean hasQkNorm() {
        return qkNorm;
    }

    /**
     * The architecture GGUF calls {@code name}.
     *
     * @throws IllegalArgumentException naming the supported ones when {@code name} is not one of them
     */
    public static Architecture fromGguf(String name) {
        for (Architecture architecture : values()) {
            if (architecture.ggufName().equals(name)) {
                return architecture;
            }
        }
        throw new IllegalArgumentException("unsupported architecture '" + name + "' (Squall runs llama, mistral, qwen2, qwen3)");
    }
}

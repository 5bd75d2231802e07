package io.squall.functions.engine.model;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * The outputs llama.cpp produced for a model in {@code ../shared/reference/logits}: prompt ids, every
 * final-position logit (F32 KV cache), the greedy continuation and, where the file has them, the margins
 * (top1 − top2) of the logits each greedy token was picked from (empty otherwise). Tests skip when the
 * folder is absent.
 */
record ReferenceOutputs(Path model, int[] promptIds, float[] logits, int argmax, int[] greedyIds, float[] greedyMargins) {

    static Path referenceDir() {
        Path dir = Path.of(System.getProperty("squall.reference.dir", "../../../shared/reference"));
        Assumptions.assumeTrue(Files.isDirectory(dir), "reference data absent at " + dir.toAbsolutePath() + "; skipping");
        return dir;
    }

    static ReferenceOutputs load(String name) {
        Path dir = referenceDir();
        try {
            List<String> lines = Files.readAllLines(dir.resolve("logits").resolve(name + ".txt"));
            int[] prompt = null;
            int argmax = -1;
            int[] greedy = null;
            float[] margins = new float[0];
            for (String line : lines) {
                if (line.startsWith("## KV cache f16")) {
                    break; // only the F32 KV cache run is exact
                }
                if (line.startsWith("prompt_ids:")) {
                    prompt = ints(line.substring("prompt_ids:".length()));
                } else if (line.startsWith("final argmax:")) {
                    argmax = Integer.parseInt(line.substring("final argmax:".length()).trim().split("\\s+")[0]);
                } else if (line.startsWith("greedy_") && line.contains("_margins:")) {
                    String[] parts = line.substring(line.indexOf(':') + 1).trim().split("\\s+");
                    margins = new float[parts.length];
                    for (int i = 0; i < parts.length; i++) {
                        margins[i] = Float.parseFloat(parts[i]);
                    }
                } else if (line.startsWith("greedy_") && line.contains("_ids:")) {
                    greedy = ints(line.substring(line.indexOf(':') + 1));
                }
            }
            List<String> logitLines = Files.readAllLines(dir.resolve("logits").resolve(name + ".all.txt"));
            float[] logits = new float[logitLines.size()];
            for (int i = 0; i < logits.length; i++) {
                logits[i] = Float.parseFloat(logitLines.get(i).trim());
            }
            return new ReferenceOutputs(dir.resolve("models").resolve(name + ".gguf"), prompt, logits, argmax, greedy, margins);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int[] ints(String text) {
        return Arrays.stream(text.trim().split("\\s+")).mapToInt(Integer::parseInt).toArray();
    }
}

package io.squall.cli;

import picocli.CommandLine.Option;

import java.util.Locale;

/**
 * {@code --kernels auto|cpu|reference|tornadovm}: which executor runs the model's kernels, the CLI's
 * form of {@code -Dsquall.kernels}. Absent, the property (or {@code auto}) decides. Shared by
 * {@code squall run}, {@code squall serve}, {@code squall worker} and {@code squall logits}.
 */
final class KernelOption {

    /** Sets {@code squall.kernels} as the option is parsed, before any command builds its kernels. */
    @Option(names = "--kernels", paramLabel = "EXECUTOR",
            description = "auto, cpu, reference or tornadovm (default: the squall.kernels property, else auto:"
                    + " TornadoVM when its runtime and a device are present, else the CPU executor)")
    void kernels(String executor) {
        String choice = executor.toLowerCase(Locale.ROOT);
        switch (choice) {
            case "auto", "cpu", "reference", "tornadovm" -> System.setProperty("squall.kernels", choice);
            default -> throw new IllegalArgumentException("--kernels must be auto, cpu, reference or tornadovm, not "
                    + executor);
        }
    }
}

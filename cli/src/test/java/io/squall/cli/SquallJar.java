package io.squall.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The command line that runs the packaged {@code target/squall.jar} in a JVM of its own, as the launcher does. */
final class SquallJar {

    private SquallJar() {
    }

    static List<String> command(String... args) {
        return command(List.of(args));
    }

    static List<String> command(List<String> args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
                "-jar", Path.of("target", "squall.jar").toString()));
        command.addAll(args);
        return command;
    }
}

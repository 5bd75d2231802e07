package io.squall.cli.launch;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line that runs {@code squall} in a new JVM the way this one runs: the same java, JVM options and class
 * path, so a child process (a planner's worker, a chaos suite's stage) runs the same build with the same flags.
 */
public final class SquallCommandLine {

    private static final String MAIN = "io.squall.cli.Squall";

    private SquallCommandLine() {
    }

    /** {@code squall} followed by {@code args}, as a new JVM. */
    public static List<String> of(List<String> args) {
        List<String> line = new ArrayList<>();
        line.add(ProcessHandle.current().info().command().orElse("java"));
        line.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        line.add("-cp");
        line.add(System.getProperty("java.class.path"));
        line.add(MAIN);
        line.addAll(args);
        return line;
    }
}

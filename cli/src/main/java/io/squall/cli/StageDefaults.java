package io.squall.cli;

import io.micronaut.context.ApplicationContext;
import io.micronaut.context.env.Environment;
import picocli.CommandLine;

import java.util.Set;

/**
 * Where the stage commands ({@code worker}, {@code gateway}, {@code serve}) take the options not given on the
 * command line: Micronaut's environment, that is environment variables ({@code SQUALL_WORKER_KV_BLOCKS} for
 * {@code squall.worker.kv-blocks}), system properties and {@code application.yml} (bundled; more files with
 * {@code MICRONAUT_CONFIG_FILES}), under the key {@code squall.<command>.<option>}. The bundled file maps
 * Knative's {@code PORT} to the HTTP port. An option with no such property keeps its declared default. Other
 * commands never start the environment.
 *
 * <p>Not thread-safe; used while picocli parses.
 */
final class StageDefaults implements CommandLine.IDefaultValueProvider {

    private static final Set<String> STAGES = Set.of("worker", "gateway", "serve");

    private Environment environment;

    @Override
    public String defaultValue(CommandLine.Model.ArgSpec arg) {
        if (!(arg instanceof CommandLine.Model.OptionSpec option) || option.command() == null
                || !STAGES.contains(option.command().name()) || option.usageHelp() || option.versionHelp()) {
            return null;
        }
        String key = "squall." + option.command().name() + "." + option.longestName().replaceFirst("^-+", "");
        return environment().getProperty(key, String.class).orElse(null);
    }

    private Environment environment() {
        if (environment == null) {
            environment = ApplicationContext.builder().deduceEnvironment(false).banner(false).build().getEnvironment().start();
        }
        return environment;
    }
}

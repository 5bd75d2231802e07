package io.squall.cli;

import io.micronaut.context.ApplicationContext;
import io.micronaut.context.env.AbstractPropertySourceLoader;
import io.micronaut.context.env.Environment;
import io.micronaut.context.env.PropertySource;
import io.micronaut.context.env.yaml.YamlPropertySourceLoader;
import picocli.CommandLine;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Set;

/**
 * Where the stage commands ({@code worker}, {@code gateway}, {@code serve}) take the options not given on the
 * command line: Micronaut's environment, that is environment variables ({@code SQUALL_WORKER_KV_BLOCKS} for
 * {@code squall.worker.kv-blocks}), system properties, the files of {@code MICRONAUT_CONFIG_FILES} and the bundled
 * {@value #BUNDLED}, under the key {@code squall.<command>.<option>}. The bundled file maps Knative's {@code PORT}
 * to the HTTP port. An option with no such property keeps its declared default. Other commands never start the
 * environment.
 *
 * <p>For a stage command the environment starts on a thread of its own as soon as the arguments are known, while
 * picocli builds its model of the commands: each takes ~0.5 s or more on a cold JVM. Not thread-safe; used while
 * picocli parses.
 */
final class StageDefaults implements CommandLine.IDefaultValueProvider {

    private static final Set<String> STAGES = Set.of("worker", "gateway", "serve");
    /** The bundled defaults, a resource of this jar, with the precedence Micronaut gives {@code application.yml}. */
    static final String BUNDLED = "squall-stage-defaults.yml";

    /** The environment already starting for a stage command, or null to start it on first use. */
    private final Starting<Environment> starting;
    private Environment environment;

    /** Starts the environment at once if {@code args} name a stage command. */
    StageDefaults(String... args) {
        starting = args.length > 0 && STAGES.contains(args[0])
                ? Starting.start("squall-stage-defaults", StageDefaults::startEnvironment) : null;
    }

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
            environment = starting != null ? starting.get() : startEnvironment();
        }
        return environment;
    }

    private static Environment startEnvironment() {
        return ApplicationContext.builder().deduceEnvironment(false).banner(false)
                .propertySources(bundled()).build().getEnvironment().start();
    }

    /** Read through the class loader, which has the jar open already (Micronaut would open it once more). */
    private static PropertySource bundled() {
        try (InputStream in = StageDefaults.class.getResourceAsStream("/" + BUNDLED)) {
            if (in == null) {
                throw new IllegalStateException(BUNDLED + " is missing from the class path");
            }
            return PropertySource.of(BUNDLED, new YamlPropertySourceLoader().read(BUNDLED, in),
                    AbstractPropertySourceLoader.DEFAULT_POSITION);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + BUNDLED, e);
        }
    }
}

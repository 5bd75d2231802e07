package io.squall.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.squall.functions.discovery.FreePorts;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's set-up as a newcomer meets it: a clean clone, {@code JAVA_HOME} unset and an older {@code java}
 * (17 on these machines) first on {@code PATH}. {@code ./mvnw} and {@code ./squall} find a JDK 25 on their own,
 * or stop with one line saying how to install one; {@code ./squall serve} serves the demo model.
 *
 * <p>By default the clone's launcher is given this build's {@code squall.jar} instead of building its own, and
 * {@code ./mvnw verify} is checked as far as choosing the JDK ({@code ./mvnw -v}), which keeps the default build
 * fast. {@code ./mvnw verify -Preadme} runs both README commands in full in the clone (minutes).
 */
class ReadmeSetupIT {

    private static final Duration STEP_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration FULL_TIMEOUT = Duration.ofMinutes(60);
    private static final Pattern SETUP_BLOCK = Pattern.compile("## Set up on a fresh machine.*?```sh\\n(.*?)```",
            Pattern.DOTALL);

    private static Path repo;
    private static boolean full;
    /** One clean clone for every test: they only read it (the launcher's jar aside). */
    private static Path clone;

    @TempDir
    static Path dir;

    @BeforeAll
    static void cloneRepository() throws Exception {
        repo = Path.of(System.getProperty("squall.repo.dir", "..")).toAbsolutePath().normalize();
        full = Boolean.getBoolean("squall.readme.full");
        Assumptions.assumeTrue(Files.exists(repo.resolve(".git")),
                "not a git checkout (" + repo + "): the README set-up is checked from a clone of one");
        clone = dir.resolve("squall");
        Run git = run(dir, Map.of("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin")), STEP_TIMEOUT,
                "git", "clone", "--quiet", repo.toString(), clone.toString());
        assertThat(git.exitCode()).as(git.output()).isZero();
    }

    @Test
    void theReadmeStatesThePrerequisitesAndTheTwoSetUpCommands() throws IOException {
        String readme = Files.readString(repo.resolve("README.md"));
        assertThat(readme).contains("Prerequisites: a JDK 25").contains(" and git.");
        assertThat(setUpCommands()).containsExactly("./squall serve", "./mvnw verify");
    }

    @Test
    void withAnOlderJavaFirstOnPathTheScriptsPickAJdk25AndSquallServeServes() throws Exception {
        Map<String, String> env = newcomerEnvironment(null);

        Run maven = run(clone, env, STEP_TIMEOUT, "./mvnw", "-v");
        assertThat(maven.exitCode()).as(maven.output()).isZero();
        assertThat(maven.output()).containsPattern("Java version: 2[5-9]");

        // In the README's order: ./squall serve (in full, building the CLI itself first), then ./mvnw verify.
        if (!full) {
            giveTheLauncherThisBuildsJar(clone);
        }
        serveAnswers(clone, env);
        if (full) {
            Run verify = run(clone, env, FULL_TIMEOUT, "./mvnw", "-B", "verify");
            assertThat(verify.exitCode()).as(verify.tail()).isZero();
        }
    }

    @Test
    void withoutAJdk25BothScriptsStopWithOneLineSayingHowToInstallOne() throws Exception {
        Map<String, String> env = newcomerEnvironment(dir.resolve("no-jdk-here").toString());
        for (String script : List.of("./mvnw", "./squall")) {
            Run run = run(clone, env, STEP_TIMEOUT, script, "--version");
            assertThat(run.exitCode()).as(script).isNotZero();
            assertThat(run.output().strip().lines()).as(script + " says it in one line").singleElement()
                    .asString().startsWith("squall: needs a JDK 25").contains("install").contains("JAVA_HOME");
        }
    }

    /** The commands of the README's set-up block, comments removed. */
    private static List<String> setUpCommands() throws IOException {
        Matcher block = SETUP_BLOCK.matcher(Files.readString(repo.resolve("README.md")));
        assertThat(block.find()).as("the README has a set-up block").isTrue();
        return block.group(1).lines().map(line -> line.replaceFirst("#.*", "").strip()).filter(l -> !l.isEmpty()).toList();
    }

    /**
     * The environment of a newcomer: no {@code JAVA_HOME}, an older JDK's {@code java} first on {@code PATH} (none
     * when the machine has no older one), and the user's Maven cache; {@code jdkSearch} replaces the places the
     * scripts look for a JDK 25 (null: the usual ones).
     */
    private static Map<String, String> newcomerEnvironment(String jdkSearch) {
        Map<String, String> env = new java.util.HashMap<>(System.getenv());
        env.remove("JAVA_HOME");
        String path = "/usr/local/bin:/usr/bin:/bin";
        Optional<Path> older = olderJdk();
        env.put("PATH", older.map(jdk -> jdk.resolve("bin") + ":" + path).orElse(path));
        if (jdkSearch != null) {
            env.put("SQUALL_JDK_SEARCH", jdkSearch);
        }
        // The demo model and other caches go to this test's directory, not the user's home.
        env.put("SQUALL_JAVA_OPTS", "-Duser.home=" + dir.resolve("home"));
        if (!full) {
            env.put("SQUALL_AOT", "off"); // the launcher's one-off AOT training takes a minute; -Preadme keeps it
        }
        return env;
    }

    /** A JDK older than 25 under /usr/lib/jvm, as the default {@code java} of these machines is. */
    private static Optional<Path> olderJdk() {
        Path jvms = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) {
            return Optional.empty();
        }
        try (Stream<Path> homes = Files.list(jvms)) {
            return homes.filter(home -> Files.isExecutable(home.resolve("bin/java")))
                    .filter(home -> home.getFileName().toString().matches(".*(1[1-9]|2[0-4])\\b.*"))
                    .sorted().findFirst();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** This build's CLI jar, newer than every source of the clone, so the launcher runs it without building. */
    private static void giveTheLauncherThisBuildsJar(Path clone) throws IOException {
        Path built = repo.resolve("cli/target/squall.jar");
        assertThat(built).as("the CLI jar is packaged before integration tests run").isRegularFile();
        Path jar = clone.resolve("cli/target/squall.jar");
        Files.createDirectories(jar.getParent());
        Files.copy(built, jar);
        Files.setLastModifiedTime(jar, FileTime.from(Instant.now().plus(Duration.ofMinutes(1))));
    }

    /** {@code ./squall serve} on free ports answers {@code /v1/models} with the demo model, then stops on SIGTERM. */
    private static void serveAnswers(Path clone, Map<String, String> env) throws Exception {
        int[] ports = FreePorts.of("127.0.0.1", 4);
        int http = ports[0];
        Path log = dir.resolve("serve.log");
        ProcessBuilder serve = new ProcessBuilder("./squall", "serve", "--http-port", "" + http, "--rsocket-port",
                "" + ports[1], "--rsocket-ws-port", "" + ports[2], "--grid-port", "" + ports[3])
                .directory(clone.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
        serve.environment().clear();
        serve.environment().putAll(env);
        Process process = serve.start();
        try {
            JsonNode models = awaitModels(process, http, log, full ? FULL_TIMEOUT : STEP_TIMEOUT);
            assertThat(models.at("/data/0/random_weights").asBoolean()).as("the demo model says it is random").isTrue();
        } finally {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    private static JsonNode awaitModels(Process process, int port, Path log, Duration timeout) throws Exception {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/models"))
                .timeout(Duration.ofSeconds(10)).build();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            assertThat(process.isAlive()).as("squall serve is running:\n%s", Files.readString(log)).isTrue();
            try {
                HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 200) {
                    return new ObjectMapper().readTree(response.body());
                }
            } catch (IOException notYetListening) {
                // the gateway starts last
            }
            assertThat(System.nanoTime()).as("squall serve answers within %s:\n%s", timeout, Files.readString(log))
                    .isLessThan(deadline);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
        }
    }

    private record Run(int exitCode, String output) {
        String tail() {
            List<String> lines = output.lines().toList();
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 80), lines.size()));
        }
    }

    private static Run run(Path directory, Map<String, String> env, Duration timeout, String... command) throws Exception {
        Path out = Files.createTempFile(dir, "run", ".log");
        ProcessBuilder builder = new ProcessBuilder(new ArrayList<>(List.of(command))).directory(directory.toFile())
                .redirectErrorStream(true).redirectOutput(out.toFile());
        builder.environment().clear();
        builder.environment().putAll(env);
        Process process = builder.start();
        if (!process.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            throw new AssertionError(String.join(" ", command) + " did not finish within " + timeout + ":\n"
                    + Files.readString(out));
        }
        return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
    }
}

package io.squall.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.squall.functions.discovery.FreePorts;
import io.squall.functions.engine.model.Architecture;
import io.squall.functions.engine.model.RandomModel;
import io.squall.kernels.GgmlType;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code squall image --out} offline, from the packaged jar: the tarball's config (entry point, user, port,
 * arguments) and layers (C libraries, the linked runtime, the user's files, the jar) are what a stage needs. Where
 * podman is installed, the image also runs: it serves {@code /readyz} and a streamed completion from a model
 * mounted into it. The image is built with the AOT cache only then (the training run takes minutes).
 */
class ImageIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final boolean PODMAN = onPath("podman");

    @TempDir
    static Path dir;

    private static Path tarball;
    private static JsonNode printed;

    @BeforeAll
    static void build() throws Exception {
        tarball = dir.resolve("squall.tar");
        List<String> args = new java.util.ArrayList<>(List.of("image", "--out", tarball.toString(), "--tag", "squall:it"));
        if (!PODMAN) {
            args.add("--no-aot");
        }
        Path out = dir.resolve("image.out");
        Path err = dir.resolve("image.err");
        Process process = new ProcessBuilder(SquallJar.command(args)).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertThat(process.waitFor(20, TimeUnit.MINUTES)).as("squall image finished").isTrue();
        assertThat(process.exitValue()).as(() -> read(err)).isZero();
        printed = JSON.readTree(read(out));
    }

    @Test
    void theTarballHoldsARunnableNonRootStage() throws Exception {
        Map<String, byte[]> files = entries(tarball);
        JsonNode manifest = JSON.readTree(files.get("manifest.json")).get(0);
        assertThat(manifest.get("RepoTags").get(0).asText()).isEqualTo("squall:it");
        JsonNode config = JSON.readTree(files.get(manifest.get("Config").asText())).get("config");
        assertThat(config.get("User").asText()).isEqualTo("1000:1000");
        assertThat(config.get("ExposedPorts").has("8080/tcp")).isTrue();
        assertThat(config.get("Cmd")).extracting(JsonNode::asText).containsExactly("serve");
        List<String> entrypoint = JSON.convertValue(config.get("Entrypoint"), JSON.getTypeFactory()
                .constructCollectionType(List.class, String.class));
        assertThat(entrypoint.getFirst()).isEqualTo("/opt/java/bin/java");
        assertThat(entrypoint).contains("--add-modules=jdk.incubator.vector", "-XX:MaxRAMPercentage=50")
                .endsWith("-jar", "/opt/squall/squall.jar");
        assertThat(entrypoint.contains("-XX:AOTCache=/opt/squall/squall.aot")).isEqualTo(printed.get("aot_cache").asBoolean());
        assertThat(config.get("Env")).extracting(JsonNode::asText).contains("PORT=8080", "HOME=/home/squall");

        List<String> layers = JSON.convertValue(manifest.get("Layers"), JSON.getTypeFactory()
                .constructCollectionType(List.class, String.class));
        assertThat(layers).hasSize(4);
        Map<String, TarArchiveEntry> libraries = layer(files.get(layers.get(0)));
        assertThat(libraries).containsKey("lib64/ld-linux-x86-64.so.2").containsKey("lib/x86_64-linux-gnu/libc.so.6");
        Map<String, TarArchiveEntry> runtime = layer(files.get(layers.get(1)));
        assertThat(runtime.get("opt/java/bin/java").getMode() & 0777).isEqualTo(0755);
        assertThat(runtime).containsKey("opt/java/lib/server/libjvm.so").containsKey("opt/java/lib/modules")
                .doesNotContainKey("opt/java/jmods/java.base.jmod");
        Map<String, TarArchiveEntry> user = layer(files.get(layers.get(2)));
        assertThat(user.get("home/squall/").getLongUserId()).isEqualTo(1000);
        assertThat(user.get("tmp/").getMode() & 07777).isEqualTo(0770);
        Map<String, TarArchiveEntry> app = layer(files.get(layers.get(3)));
        assertThat(app).containsKey("opt/squall/squall.jar");
        assertThat(app.containsKey("opt/squall/squall.aot")).isEqualTo(printed.get("aot_cache").asBoolean());
    }

    @Test
    void podmanRunsTheImageServingAStreamedCompletionFromAMountedModel() throws Exception {
        Assumptions.assumeTrue(PODMAN, "podman is not installed: the image is not run (apt-get install podman runc)");
        Path models = Files.createDirectory(dir.resolve("models"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwxr-xr-x")));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        RandomModel.write(new RandomModel.Spec(Architecture.LLAMA, new RandomModel.Shape(64, 2, 4, 4, 128, 512),
                GgmlType.Q8_0, null, 5), models.resolve("m.gguf"));
        Files.setPosixFilePermissions(models.resolve("m.gguf"), PosixFilePermissions.fromString("rw-r--r--"));
        assertThat(podman("load", "-i", tarball.toString()).exitCode).isZero();
        int[] ports = FreePorts.of("127.0.0.1", 4);
        int port = ports[0];
        String name = "squall-image-it-" + ProcessHandle.current().pid();
        Run started = podman("run", "-d", "--rm", "--name", name, "--runtime", "runc",
                "--ulimit", "nofile=20000:20000", "--ulimit", "nproc=32768:32768", "--network=host",
                "-v", models + ":/models:ro", "localhost/squall:it",
                "serve", "--model", "/models/m.gguf", "--host", "127.0.0.1", "--http-port", Integer.toString(port),
                "--rsocket-port", Integer.toString(ports[1]), "--rsocket-ws-port", Integer.toString(ports[2]),
                "--grid-port", Integer.toString(ports[3]), "--kv-blocks", "256");
        assertThat(started.exitCode).as(started.output).isZero();
        try (HttpClient http = HttpClient.newHttpClient()) {
            URI base = URI.create("http://127.0.0.1:" + port);
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
            while (status(http, base.resolve("/readyz")) != 200) {
                assertThat(System.nanoTime()).as(() -> "the container became ready; its log:\n" + logs(name)).isLessThan(deadline);
                Thread.sleep(200);
            }
            HttpResponse<String> streamed = http.send(HttpRequest.newBuilder(base.resolve("/v1/completions"))
                    .header("Content-Type", "application/json").timeout(Duration.ofMinutes(2))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"m\",\"prompt\":\"Once upon a time\","
                            + "\"max_tokens\":8,\"stream\":true,\"ignore_eos\":true,\"stream_options\":{\"include_usage\":true}}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(streamed.statusCode()).as(streamed.body()).isEqualTo(200);
            // a chunk carries whole characters, so 8 random tokens may come in fewer text chunks; usage counts them
            assertThat(streamed.body().lines().filter(line -> line.startsWith("data: {")).count()).isGreaterThan(1);
            assertThat(streamed.body()).contains("\"finish_reason\":\"length\"").contains("\"completion_tokens\":8")
                    .contains("data: [DONE]");
        } finally {
            podman("stop", "-t", "30", name);
        }
    }

    private static int status(HttpClient http, URI uri) throws InterruptedException {
        try {
            return http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException notYet) {
            return -1;
        }
    }

    private record Run(int exitCode, String output) {
    }

    private static Run podman(String... args) throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>(List.of("podman"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(5, TimeUnit.MINUTES)).as("podman %s finished", List.of(args)).isTrue();
        return new Run(process.exitValue(), output);
    }

    private static String logs(String name) {
        try {
            return podman("logs", name).output;
        } catch (IOException | InterruptedException e) {
            return "(no log: " + e + ")";
        }
    }

    /** The files of a docker-archive tarball by name. */
    private static Map<String, byte[]> entries(Path tar) throws IOException {
        Map<String, byte[]> files = new HashMap<>();
        try (TarArchiveInputStream in = new TarArchiveInputStream(Files.newInputStream(tar))) {
            for (TarArchiveEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
                if (entry.isFile()) {
                    files.put(entry.getName(), in.readAllBytes());
                }
            }
        }
        return files;
    }

    /** The entries of a gzipped layer by path (directories end with '/'). */
    private static Map<String, TarArchiveEntry> layer(byte[] gzipped) throws IOException {
        Map<String, TarArchiveEntry> entries = new HashMap<>();
        try (InputStream raw = new GZIPInputStream(new ByteArrayInputStream(gzipped));
             TarArchiveInputStream in = new TarArchiveInputStream(raw)) {
            for (TarArchiveEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
                entries.put(entry.getName().replaceFirst("^\\./", "").replaceFirst("^/", ""), entry);
            }
        }
        return entries;
    }

    private static boolean onPath(String program) {
        String path = System.getenv("PATH");
        return path != null && java.util.Arrays.stream(path.split(java.io.File.pathSeparator))
                .anyMatch(dir -> Files.isExecutable(Path.of(dir, program)));
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }
}

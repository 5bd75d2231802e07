package io.squall.cli;

import com.google.cloud.tools.jib.api.JibContainer;
import io.squall.knative.image.AotTraining;
import io.squall.knative.image.JavaRuntime;
import io.squall.knative.image.SquallImage;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * {@code squall image}: the one container image of every stage, built by Jib with no Docker daemon: a linked Java
 * runtime, its C libraries, the {@code squall} jar and an AOT cache trained here by a warm-up run of
 * {@code squall serve}; written as a docker-archive tarball ({@code podman load -i FILE}) or pushed to a registry.
 * Prints {@code {"image":…,"digest":…,"image_id":…}} on stdout.
 */
@Command(name = "image", description = "Build the container image of every stage (no Docker daemon): --out FILE.tar or --push REF.")
final class ImageCommand implements Callable<Integer> {

    /** Options the image adds to {@code squall-jvm.options}: sized by the container's memory, headless, fail fast. */
    static final List<String> CONTAINER_FLAGS = List.of("-XX:MaxRAMPercentage=50", "-XX:+ExitOnOutOfMemoryError",
            "-Djava.awt.headless=true");

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.ArgGroup(multiplicity = "1")
    Target target;

    static final class Target {
        @Option(names = "--out", description = "write the image as a docker-archive tarball")
        Path out;

        @Option(names = "--push", description = "push the image to this reference, e.g. localhost:5000/squall:dev")
        String push;
    }

    @Option(names = "--tag", defaultValue = "squall:latest", description = "the image name in the tarball (default: ${DEFAULT-VALUE})")
    String tag;

    @Option(names = "--base", defaultValue = "scratch", description = "scratch, or tar://FILE for a docker-archive base image (default: ${DEFAULT-VALUE})")
    String base;

    @Option(names = "--jar", description = "the squall jar to ship (default: the jar this command runs from)")
    Path jar;

    @Option(names = "--no-aot", description = "leave out the ahead-of-time cache (faster build, slower cold start)")
    boolean noAot;

    @Option(names = "--insecure-registry", arity = "0..1", fallbackValue = "true",
            description = "allow a plain-HTTP or self-signed registry for --push")
    boolean insecure;

    @Override
    public Integer call() throws Exception {
        Path application = jar != null ? jar : runningJar();
        if (!Files.isRegularFile(application)) {
            throw new IllegalArgumentException("--jar " + application + " is not a file");
        }
        Path work = Files.createTempDirectory("squall-image");
        try {
            // the JVM accepts an AOT cache only for a jar with the training run's size and modification time: both
            // runs see this copy, dated as every file in the image is
            Path shipped = Files.copy(application, work.resolve("squall.jar"));
            Files.setLastModifiedTime(shipped, FileTime.from(SquallImage.FILE_TIME));
            System.err.println("squall image: linking a Java runtime (" + String.join(",", JavaRuntime.MODULES) + ")");
            JavaRuntime runtime = JavaRuntime.link(work.resolve("runtime"));
            List<String> flags = jvmFlags();
            Path cache = null;
            if (!noAot) {
                System.err.println("squall image: training the AOT cache with a warm-up run of squall serve");
                cache = train(runtime, shipped, flags, work);
            }
            SquallImage image = SquallImage.layout(base, runtime, shipped, cache, flags);
            JibContainer built = target.out != null ? image.writeTarball(target.out, tag) : image.push(target.push, insecure);
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("image", target.out != null ? tag : target.push);
            json.put("digest", built.getDigest().toString());
            json.put("image_id", built.getImageId().toString());
            json.put("aot_cache", cache != null);
            if (target.out != null) {
                json.put("out", target.out.toAbsolutePath().toString());
            }
            Json.print(spec.commandLine().getOut(), json);
            return 0;
        } finally {
            delete(work);
        }
    }

    /** Trains the AOT cache with the image's runtime, flags and jar, on a small random model written here. */
    private static Path train(JavaRuntime runtime, Path application, List<String> flags, Path work) {
        Path model = DemoModel.write(work.resolve("warmup-model.gguf"));
        List<String> workload = List.of("serve", "--warmup-and-exit", "--model", model.toString(), "--host", "127.0.0.1",
                "--http-port", "0", "--rsocket-port", "0", "--rsocket-ws-port", "0", "--grid-port", "0",
                "--kv-blocks", "512");
        return new AotTraining(runtime.java(), flags, application)
                .train(workload, work.resolve("squall.aot"), work.resolve("aot-training.log"), 900);
    }

    /** {@code squall-jvm.options} and {@link #CONTAINER_FLAGS}. */
    static List<String> jvmFlags() {
        try (InputStream in = ImageCommand.class.getResourceAsStream("/squall-jvm.options")) {
            if (in == null) {
                throw new IllegalStateException("squall-jvm.options is missing from the squall jar");
            }
            List<String> flags = new ArrayList<>(new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                    .map(String::strip).filter(line -> !line.isEmpty() && !line.startsWith("#")).toList());
            flags.addAll(CONTAINER_FLAGS);
            return flags;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path runningJar() {
        try {
            Path self = Path.of(ImageCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (!Files.isRegularFile(self)) {
                throw new IllegalArgumentException("not running from a jar (" + self + "): give --jar target/squall.jar");
            }
            return self;
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }
}

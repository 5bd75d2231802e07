package io.squall.knative.image;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;

/**
 * A Java runtime linked by {@code jlink} with the modules Squall needs, and the C libraries its executables and
 * shared objects load (found with {@code ldd}), so that an image from {@code scratch} holds all it runs on.
 *
 * @param home the linked runtime's directory ({@code bin/java}, {@code lib/…})
 * @param libraries absolute paths of the C libraries (the dynamic loader, glibc's parts) as the loader looks them
 *                  up; each is a file or a symbolic link to one on this machine
 */
public record JavaRuntime(Path home, List<Path> libraries) {

    /**
     * The modules: the Java SE platform (Hazelcast asks for it), the Vector API the CPU kernels run on, the JDK's
     * internal APIs that Netty and the hashing library reach, management (Hazelcast's metrics), DNS naming
     * (Kubernetes discovery), the ZIP file system and Flight Recorder for diagnosis.
     */
    public static final List<String> MODULES = List.of("java.se", "jdk.incubator.vector", "jdk.unsupported",
            "jdk.management", "jdk.naming.dns", "jdk.net", "jdk.zipfs", "jdk.jfr");

    /** Shared objects of the runtime that only a desktop loads (X11, sound): their libraries are left out. */
    private static final Set<String> DESKTOP_ONLY = Set.of("libawt_xawt.so", "libsplashscreen.so", "libjawt.so",
            "libjsound.so");

    public JavaRuntime {
        Objects.requireNonNull(home, "home");
        libraries = List.copyOf(libraries);
    }

    /**
     * Links {@link #MODULES} of the running JDK into {@code target} (which must not exist yet), without debug
     * symbols, man pages or headers, and finds its C libraries.
     *
     * @throws IllegalStateException if this JVM has no {@code jlink} (a JRE or a linked runtime) or linking fails
     */
    public static JavaRuntime link(Path target) {
        ToolProvider jlink = ToolProvider.findFirst("jlink").orElseThrow(() -> new IllegalStateException(
                "building an image needs a full JDK 25 (jlink); this Java at " + System.getProperty("java.home") + " has none"));
        StringWriter log = new StringWriter();
        int status = jlink.run(new PrintWriter(log), new PrintWriter(log), "--add-modules", String.join(",", MODULES),
                "--strip-debug", "--no-man-pages", "--no-header-files", "--output", target.toString());
        if (status != 0) {
            throw new IllegalStateException("jlink failed (" + status + "): " + log.toString().strip());
        }
        return new JavaRuntime(target, libraries(target));
    }

    /** {@code bin/java} of the runtime. */
    public Path java() {
        return home.resolve("bin").resolve("java");
    }

    /** The C libraries that {@code ldd} reports for the runtime's executables and shared objects. */
    private static List<Path> libraries(Path home) {
        Set<Path> found = new TreeSet<>();
        try (Stream<Path> files = Files.walk(home)) {
            for (Path file : files.filter(Files::isRegularFile).filter(JavaRuntime::loadable).toList()) {
                for (String line : ldd(file)) {
                    library(line, home).ifPresent(found::add);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return List.copyOf(found);
    }

    private static boolean loadable(Path file) {
        String name = file.getFileName().toString();
        boolean executable = file.getParent().getFileName().toString().equals("bin");
        return (executable || name.endsWith(".so")) && !DESKTOP_ONLY.contains(name);
    }

    /** The library a line of {@code ldd}'s output names, unless it is part of the runtime or virtual. */
    private static java.util.Optional<Path> library(String line, Path home) {
        String trimmed = line.strip();
        String path;
        int arrow = trimmed.indexOf("=>");
        if (arrow >= 0) {
            String rest = trimmed.substring(arrow + 2).strip();
            if (rest.startsWith("not found")) {
                if (ownLibrary(home, trimmed.substring(0, arrow).strip())) {
                    return java.util.Optional.empty(); // e.g. libjvm.so, which the launcher loads from lib/server
                }
                throw new IllegalStateException("a library of the linked runtime is missing on this machine: " + trimmed);
            }
            path = rest.split("\\s+")[0];
        } else {
            path = trimmed.split("\\s+")[0]; // the dynamic loader: "/lib64/ld-linux-x86-64.so.2 (0x…)"
        }
        if (!path.startsWith("/")) {
            return java.util.Optional.empty(); // linux-vdso.so.1 and the like
        }
        Path library = Path.of(path).normalize();
        return library.startsWith(home.toAbsolutePath().normalize()) ? java.util.Optional.empty() : java.util.Optional.of(library);
    }

    private static boolean ownLibrary(Path home, String name) {
        try (Stream<Path> files = Files.walk(home)) {
            return files.anyMatch(file -> file.getFileName().toString().equals(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> ldd(Path file) {
        try {
            Process process = new ProcessBuilder("ldd", file.toString()).redirectErrorStream(true).start();
            List<String> lines = new ArrayList<>(new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                    .lines().toList());
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("ldd " + file + " did not finish");
            }
            // "not a dynamic executable" (a script, a static file): nothing to add
            return process.exitValue() == 0 ? lines : List.of();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run ldd (needed to find the C libraries of the image)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running ldd", e);
        }
    }
}

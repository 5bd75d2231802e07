package io.squall.knative.image;

import com.google.cloud.tools.jib.api.CacheDirectoryCreationException;
import com.google.cloud.tools.jib.api.Containerizer;
import com.google.cloud.tools.jib.api.ImageReference;
import com.google.cloud.tools.jib.api.InvalidImageReferenceException;
import com.google.cloud.tools.jib.api.Jib;
import com.google.cloud.tools.jib.api.JibContainer;
import com.google.cloud.tools.jib.api.JibContainerBuilder;
import com.google.cloud.tools.jib.api.RegistryException;
import com.google.cloud.tools.jib.api.RegistryImage;
import com.google.cloud.tools.jib.api.TarImage;
import com.google.cloud.tools.jib.api.buildplan.AbsoluteUnixPath;
import com.google.cloud.tools.jib.api.buildplan.FileEntriesLayer;
import com.google.cloud.tools.jib.api.buildplan.FilePermissions;
import com.google.cloud.tools.jib.api.buildplan.Port;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;

/**
 * The image every stage runs: from {@code scratch} (or a base given as a docker-archive tarball, {@code tar://…}),
 * a layer of C libraries, a layer with the linked Java runtime, a layer with the non-root user's files, and a layer
 * with the {@code squall} jar and its AOT cache. The entry point is {@code java <flags> -jar squall.jar}; the
 * arguments choose the stage ({@code serve}, {@code worker …}, {@code gateway …}) and default to {@code serve}.
 * Runs as {@value #USER} (uid and gid 1000, home {@value #HOME}); exposes {@value #PORT} (Knative's default
 * {@code PORT}).
 *
 * <p>Layers are ordered from the least to the most often changed, so a rebuild after a code change ships one
 * layer. Every file has an explicit mode, owner and the fixed time {@link #FILE_TIME}, so equal inputs give equal
 * layers.
 */
public final class SquallImage {

    /** The user the stages run as. */
    public static final String USER = "1000:1000";
    /** The user's home: writable, holds the model cache. */
    public static final String HOME = "/home/squall";
    /** The HTTP port a stage serves ({@code PORT} is set to it). */
    public static final int PORT = 8080;
    /** Where the runtime, the jar and the AOT cache sit in the image. */
    public static final String JAVA_HOME = "/opt/java";
    public static final String JAR = "/opt/squall/squall.jar";
    public static final String AOT_CACHE = "/opt/squall/squall.aot";
    /** The modification time of every file in the image. */
    public static final Instant FILE_TIME = Instant.ofEpochSecond(1);

    private static final FilePermissions EXECUTABLE = FilePermissions.fromOctalString("755");
    private static final FilePermissions READ_ONLY = FilePermissions.fromOctalString("644");
    private static final String ROOT = "0:0";

    private final JibContainerBuilder builder;

    private SquallImage(JibContainerBuilder builder) {
        this.builder = builder;
    }

    /**
     * Lays out the image.
     *
     * @param base {@code scratch}, or {@code tar://FILE} for a docker-archive base image
     * @param runtime the linked Java runtime and its C libraries ({@code null} when the base image brings Java at
     *                {@value #JAVA_HOME})
     * @param jar the {@code squall} jar
     * @param aotCache the AOT cache trained for this runtime and jar, or {@code null} for none
     * @param jvmFlags the JVM flags of the entry point
     */
    public static SquallImage layout(String base, JavaRuntime runtime, Path jar, Path aotCache, List<String> jvmFlags) {
        Objects.requireNonNull(base, "base");
        Objects.requireNonNull(jar, "jar");
        try {
            JibContainerBuilder builder = base.equals("scratch") ? Jib.fromScratch()
                    : base.startsWith(Jib.TAR_IMAGE_PREFIX) ? Jib.from(TarImage.at(Path.of(base.substring(Jib.TAR_IMAGE_PREFIX.length()))))
                    : unsupportedBase(base);
            if (runtime != null) {
                builder.addFileEntriesLayer(libraries(runtime.libraries()));
                builder.addFileEntriesLayer(tree("java-runtime", runtime.home(), AbsoluteUnixPath.get(JAVA_HOME)));
            }
            builder.addFileEntriesLayer(userFiles());
            FileEntriesLayer.Builder app = FileEntriesLayer.builder().setName("squall")
                    .addEntry(jar, AbsoluteUnixPath.get(JAR), READ_ONLY, FILE_TIME, ROOT);
            List<String> entrypoint = new ArrayList<>();
            entrypoint.add(JAVA_HOME + "/bin/java");
            entrypoint.addAll(jvmFlags);
            if (aotCache != null) {
                app.addEntry(aotCache, AbsoluteUnixPath.get(AOT_CACHE), READ_ONLY, FILE_TIME, ROOT);
                entrypoint.add("-XX:AOTCache=" + AOT_CACHE);
            }
            entrypoint.addAll(List.of("-jar", JAR));
            builder.addFileEntriesLayer(app.build())
                    .setEntrypoint(entrypoint)
                    .setProgramArguments("serve")
                    .setUser(USER)
                    .setWorkingDirectory(AbsoluteUnixPath.get(HOME))
                    .setEnvironment(Map.of("HOME", HOME, "PORT", Integer.toString(PORT), "JAVA_HOME", JAVA_HOME,
                            // the stages bind every interface in a container (a worker advertises --host, set per pod)
                            "SQUALL_SERVE_HOST", "0.0.0.0", "SQUALL_GATEWAY_HOST", "0.0.0.0"))
                    .addExposedPort(Port.tcp(PORT))
                    .addLabel("org.opencontainers.image.title", "squall")
                    .addLabel("org.opencontainers.image.description", "Squall: every stage (serve, worker, gateway) of LLM serving on the JVM")
                    .setCreationTime(FILE_TIME);
            return new SquallImage(builder);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static JibContainerBuilder unsupportedBase(String base) {
        throw new IllegalArgumentException("the base image must be scratch or tar://FILE (a docker-archive tarball), not " + base);
    }

    /** Writes the image as a docker-archive tarball ({@code podman load -i FILE}) tagged {@code tag}. */
    public JibContainer writeTarball(Path file, String tag) {
        try {
            return containerize(Containerizer.to(TarImage.at(file).named(ImageReference.parse(tag))).setOfflineMode(true));
        } catch (InvalidImageReferenceException e) {
            throw new IllegalArgumentException("bad image name " + tag + ": " + e.getMessage(), e);
        }
    }

    /**
     * Pushes the image to the registry of {@code reference} (credentials from the Docker config or credential
     * helpers, as Jib finds them).
     *
     * @param insecure whether the registry may be plain HTTP or have an untrusted certificate (a local registry)
     */
    public JibContainer push(String reference, boolean insecure) {
        try {
            return containerize(Containerizer.to(RegistryImage.named(ImageReference.parse(reference)))
                    .setAllowInsecureRegistries(insecure));
        } catch (InvalidImageReferenceException e) {
            throw new IllegalArgumentException("bad image reference " + reference + ": " + e.getMessage(), e);
        }
    }

    private JibContainer containerize(Containerizer containerizer) {
        try {
            return builder.containerize(containerizer.setToolName("squall"));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while building the image", e);
        } catch (RegistryException e) {
            throw new IllegalStateException("the registry refused the image: " + e.getMessage(), e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("building the image failed: " + e.getCause(), e.getCause());
        } catch (IOException e) {
            throw new UncheckedIOException("building the image failed", e);
        } catch (CacheDirectoryCreationException e) {
            throw new IllegalStateException("Jib cannot create its cache directory: " + e.getMessage(), e);
        }
    }

    /** The C libraries at the paths the loader looks them up, as files (links followed). */
    private static FileEntriesLayer libraries(List<Path> libraries) throws IOException {
        FileEntriesLayer.Builder layer = FileEntriesLayer.builder().setName("c-libraries");
        for (Path library : libraries) {
            layer.addEntry(library.toRealPath(), AbsoluteUnixPath.fromPath(library), EXECUTABLE, FILE_TIME, ROOT);
        }
        return layer.build();
    }

    /** Every file and directory under {@code source} at {@code target}: executables 755, other files 644. */
    private static FileEntriesLayer tree(String name, Path source, AbsoluteUnixPath target) throws IOException {
        FileEntriesLayer.Builder layer = FileEntriesLayer.builder().setName(name);
        try (Stream<Path> files = Files.walk(source)) {
            for (Path file : files.sorted().toList()) {
                boolean executable = Files.isDirectory(file) || Files.isExecutable(file);
                layer.addEntry(file, target.resolve(source.relativize(file).toString()),
                        executable ? EXECUTABLE : READ_ONLY, FILE_TIME, ROOT);
            }
        }
        return layer.build();
    }

    /**
     * {@code /etc/passwd} and {@code /etc/group} naming the user (the JVM reads its home from them), the user's
     * home and a {@code /tmp} the user owns (Jib takes no sticky bit, so not the usual 1777).
     */
    private static FileEntriesLayer userFiles() throws IOException {
        Path dir = Files.createTempDirectory("squall-image-user");
        Path passwd = Files.writeString(dir.resolve("passwd"),
                "root:x:0:0:root:/root:/sbin/nologin\nsquall:x:1000:1000:squall:" + HOME + ":/sbin/nologin\n", StandardCharsets.UTF_8);
        Path group = Files.writeString(dir.resolve("group"), "root:x:0:\nsquall:x:1000:\n", StandardCharsets.UTF_8);
        Path empty = Files.createDirectory(dir.resolve("empty"));
        FilePermissions userDir = FilePermissions.fromOctalString("750");
        return FileEntriesLayer.builder().setName("user")
                .addEntry(passwd, AbsoluteUnixPath.get("/etc/passwd"), READ_ONLY, FILE_TIME, ROOT)
                .addEntry(group, AbsoluteUnixPath.get("/etc/group"), READ_ONLY, FILE_TIME, ROOT)
                .addEntry(empty, AbsoluteUnixPath.get(HOME), userDir, FILE_TIME, USER)
                .addEntry(empty, AbsoluteUnixPath.get("/tmp"), FilePermissions.fromOctalString("770"), FILE_TIME, USER)
                .build();
    }
}

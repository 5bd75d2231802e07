package io.squall.cli.model;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a {@code --model} argument names: a local file, a file of a Hugging Face repository
 * ({@code hf:OWNER/REPO/PATH/FILE.gguf}, optionally {@code hf:OWNER/REPO@REVISION/...}; revision {@code main} by
 * default), or an {@code http(s)://} URL. Parsing checks the form only; nothing is read or downloaded.
 */
public sealed interface ModelSpec {

    /** A model file on this machine. */
    record LocalFile(Path path) implements ModelSpec {
        public LocalFile {
            Objects.requireNonNull(path, "path");
        }

        @Override
        public String toString() {
            return path.toString();
        }
    }

    /**
     * A model to download once.
     *
     * @param url where it is served (for the hub, its {@code resolve} URL)
     * @param cacheKey its place in the model cache, relative: host, then the path's segments
     * @param label how messages name it, e.g. {@code hf:ggml-org/models/tinyllamas/stories260K.gguf}
     */
    record Download(URI url, Path cacheKey, String label) implements ModelSpec {
        public Download {
            Objects.requireNonNull(url, "url");
            Objects.requireNonNull(cacheKey, "cacheKey");
            Objects.requireNonNull(label, "label");
        }

        /** The file name, e.g. {@code stories260K.gguf}. */
        public String fileName() {
            return cacheKey.getFileName().toString();
        }

        @Override
        public String toString() {
            return label;
        }
    }

    /** Hugging Face's hub, unless {@code HF_ENDPOINT} or {@code -Dsquall.hf.endpoint} names another. */
    String DEFAULT_HUB = "https://huggingface.co";

    /** {@code OWNER/REPO[@REVISION]/PATH}: names of letters, digits, '-', '_' and '.'. */
    Pattern HUB_FILE = Pattern.compile("([\\w.-]+)/([\\w.-]+)(?:@([\\w./-]+?))?/([\\w.-]+(?:/[\\w.-]+)*)");

    /** Parses {@code text} against the hub that {@link #hubEndpoint()} names. */
    static ModelSpec parse(String text) {
        return parse(text, hubEndpoint());
    }

    /**
     * Parses {@code text}; {@code hf:} names resolve against {@code hub}.
     *
     * @throws IllegalArgumentException with the accepted forms, if {@code text} is not one of them
     */
    static ModelSpec parse(String text, URI hub) {
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(hub, "hub");
        if (text.startsWith("hf:")) {
            Matcher m = HUB_FILE.matcher(text.substring(3));
            if (!m.matches() || hasDotSegment(m.group(4)) || hasDotSegment(m.group(1) + "/" + m.group(2))) {
                throw new IllegalArgumentException("--model " + text + ": a hub model is hf:OWNER/REPO/FILE.gguf "
                        + "(FILE may sit in folders; hf:OWNER/REPO@REVISION/FILE.gguf picks a revision)");
            }
            String revision = m.group(3) == null ? "main" : m.group(3);
            URI url = URI.create(hub.toString().replaceFirst("/+$", "") + "/" + m.group(1) + "/" + m.group(2)
                    + "/resolve/" + revision + "/" + m.group(4));
            Path key = Path.of(host(hub), m.group(1), m.group(2), revision).resolve(m.group(4));
            return new Download(url, key, text);
        }
        if (text.startsWith("https://") || text.startsWith("http://")) {
            URI url;
            try {
                url = new URI(text);
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException("--model " + text + " is not a valid URL: " + e.getReason());
            }
            String path = url.getPath();
            if (url.getHost() == null || path == null || path.isEmpty() || path.endsWith("/") || hasDotSegment(path)) {
                throw new IllegalArgumentException("--model " + text + ": a URL must name a file, e.g. "
                        + "https://host/path/model.gguf");
            }
            return new Download(url, Path.of(host(url)).resolve(path.substring(1)), text);
        }
        return new LocalFile(Path.of(text));
    }

    /** The hub {@code hf:} names resolve against: {@code -Dsquall.hf.endpoint}, else {@code HF_ENDPOINT}, else the public one. */
    static URI hubEndpoint() {
        String configured = System.getProperty("squall.hf.endpoint", System.getenv("HF_ENDPOINT"));
        return URI.create(configured == null || configured.isBlank() ? DEFAULT_HUB : configured);
    }

    private static String host(URI uri) {
        return uri.getPort() < 0 ? uri.getHost() : uri.getHost() + "_" + uri.getPort();
    }

    private static boolean hasDotSegment(String path) {
        for (String segment : path.split("/")) {
            if (segment.equals(".") || segment.equals("..")) {
                return true;
            }
        }
        return false;
    }
}

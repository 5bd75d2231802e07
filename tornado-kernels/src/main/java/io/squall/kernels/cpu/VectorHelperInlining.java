package io.squall.kernels.cpu;

import jdk.incubator.vector.Vector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.management.ObjectName;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Tells HotSpot's JIT to inline the kernels' vector helpers (every method of {@link #HELPER_CLASSES} that takes or
 * returns a {@link Vector}) into all their callers, as the JDK's own {@code @ForceInline} does for the Vector API.
 *
 * <p>Why: compiled on its own, such a helper passes boxed vectors and runs the Vector API's Java fallbacks, ten to a
 * hundred times slower. C2 inlines small helpers by their call-site profile, and a helper that tiered compilation
 * first compiled at tier 2 (C1 without profiling: what it does while the C2 queue is long, as on two cores during
 * warm-up) has none; C2 then refuses its inner calls ("low call site frequency", "too big") and the kernel stays slow
 * for the life of the process. Seen as IQ4_XS decode at 20 to 190 tokens/s and Q8_0 at 26 or 256 from one process to
 * the next. The directive goes in through the {@code Compiler.directives_add} diagnostic command, so no JVM flag
 * is needed wherever the kernels run.
 */
final class VectorHelperInlining {

    private static final Logger LOG = LoggerFactory.getLogger(VectorHelperInlining.class);

    /** The classes whose vector helpers are inlined; {@code VectorHelperInliningTest} checks none is missing. */
    static final List<Class<?>> HELPER_CLASSES = List.of(
            IntDots.class, InterleavedRows.class, InterleavedNibbles.class, InterleavedBytes.class, KQuantDots.class, FusedDots.class, Grid.class, RowDecoder.class, TiledMatmul.class,
            VectorMath.class);

    private VectorHelperInlining() {
    }

    /** Installs the directive once per JVM; whether the JVM took it. */
    static boolean ensureInstalled() {
        return Installed.ANSWER;
    }

    /** Holds the one installation, made on first use rather than when the patterns are merely listed. */
    private static final class Installed {
        static final boolean ANSWER = install();
    }

    /** The helpers' method patterns, {@code io/squall/kernels/cpu/IntDots.pairInts}, sorted. */
    static List<String> helperPatterns(List<Class<?>> classes) {
        return classes.stream()
                .flatMap(c -> Arrays.stream(c.getDeclaredMethods()).filter(VectorHelperInlining::movesVectors)
                        .map(m -> c.getName().replace('.', '/') + "." + m.getName()))
                .distinct().sorted().toList();
    }

    private static boolean movesVectors(Method m) {
        return !Modifier.isAbstract(m.getModifiers()) && !m.isSynthetic()
                && Stream.concat(Stream.of(m.getReturnType()), Arrays.stream(m.getParameterTypes()))
                .anyMatch(Vector.class::isAssignableFrom);
    }

    /** A compiler directive (HotSpot's JSON dialect) forcing {@code patterns} inline in every compilation. */
    static String directive(List<String> patterns) {
        return patterns.stream().map(p -> "\"+" + p + "\"")
                .collect(Collectors.joining(", ", "[{ match: \"*.*\", inline: [", "] }]"));
    }

    private static boolean install() {
        Path file = null;
        try {
            file = Files.createTempFile("squall-inline", ".json");
            Files.writeString(file, directive(helperPatterns(HELPER_CLASSES)));
            Object answer = ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "compilerDirectivesAdd",
                    new Object[] {new String[] {file.toString()}}, new String[] {String[].class.getName()});
            boolean added = String.valueOf(answer).contains("added");
            if (!added) {
                LOG.warn("the JIT refused the kernels' inlining directive ({}); kernel speed may vary between runs",
                        String.valueOf(answer).strip());
            }
            return added;
        } catch (Exception | LinkageError e) {
            // not HotSpot, or no java.management: the kernels stay correct, only their warm-up is less certain
            LOG.warn("could not give the JIT the kernels' inlining directive: {}", e.toString());
            return false;
        } finally {
            if (file != null) {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException ignored) {
                    // a temp file left behind is harmless
                }
            }
        }
    }
}

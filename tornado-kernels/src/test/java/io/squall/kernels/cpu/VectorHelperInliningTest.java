package io.squall.kernels.cpu;

import org.junit.jupiter.api.Test;

import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The kernels' vector helpers reach the JIT as a forced-inline directive: the JVM holds it once the CPU kernels
 * exist, it names every helper and no plain kernel, and no class of the package with such helpers is left out.
 */
class VectorHelperInliningTest {

    @Test
    void theJvmHoldsTheDirectiveOnceCpuKernelsExist() throws Exception {
        new CpuKernels(1).close();

        Object printed = ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "compilerDirectivesPrint",
                new Object[] {null}, new String[] {String[].class.getName()});
        assertThat(VectorHelperInlining.ensureInstalled()).isTrue();
        assertThat(printed.toString())
                .contains("+io/squall/kernels/cpu/IntDots.pairInts")
                .contains("+io/squall/kernels/cpu/IntDots.iq4Block");
    }

    @Test
    void helpersAreTheMethodsThatTakeOrReturnVectors() {
        List<String> patterns = VectorHelperInlining.helperPatterns(List.of(IntDots.class, TiledMatmul.class));

        assertThat(patterns).contains("io/squall/kernels/cpu/IntDots.grid16", "io/squall/kernels/cpu/IntDots.unsigned16",
                "io/squall/kernels/cpu/TiledMatmul.store");
        // whole-row kernels return floats: inlined everywhere they would swell their callers past C2's budget
        assertThat(patterns).doesNotContain("io/squall/kernels/cpu/IntDots.q4_K", "io/squall/kernels/cpu/IntDots.iq4_XS",
                "io/squall/kernels/cpu/IntDots.gridBytes");
        assertThat(VectorHelperInlining.directive(List.of("a/B.c", "a/B.d")))
                .isEqualTo("[{ match: \"*.*\", inline: [\"+a/B.c\", \"+a/B.d\"] }]");
    }

    @Test
    void everyClassOfThePackageWithVectorHelpersIsCovered() throws Exception {
        List<Class<?>> withHelpers = packageClasses().stream()
                .filter(c -> !VectorHelperInlining.helperPatterns(List.of(c)).isEmpty())
                .toList();

        assertThat(withHelpers).isNotEmpty();
        assertThat(VectorHelperInlining.HELPER_CLASSES).containsAll(withHelpers);
    }

    private static List<Class<?>> packageClasses() throws URISyntaxException, IOException {
        Path dir = Path.of(IntDots.class.getResource("IntDots.class").toURI()).getParent();
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString())
                    .filter(n -> n.endsWith(".class"))
                    .<Class<?>>map(n -> load(IntDots.class.getPackageName() + "." + n.substring(0, n.length() - 6)))
                    .toList();
        }
    }

    private static Class<?> load(String name) {
        try {
            return Class.forName(name, false, IntDots.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(name, e);
        }
    }
}

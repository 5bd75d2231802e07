package io.squall.functions.discovery;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class FreePortsTest {

    private static final String LOOPBACK = "127.0.0.1";

    @Test
    void portsChosenTogetherAreDistinctAndCanAllBeBound() throws IOException {
        int[] ports = FreePorts.of(LOOPBACK, 16);

        assertThat(ports).hasSize(16).doesNotHaveDuplicates();
        List<ServerSocket> bound = new ArrayList<>();
        try {
            for (int port : ports) {
                bound.add(new ServerSocket(port, 1, InetAddress.getByName(LOOPBACK)));
            }
        } finally {
            for (ServerSocket socket : bound) {
                socket.close();
            }
        }
    }

    @Test
    void portsChosenOneAtATimeAreNotHandedOutAgainWhileRemembered() {
        // without the memory, 1,024 choices one at a time on Linux repeated a port 62 to 77 times in five tries
        int[] ports = IntStream.range(0, FreePorts.REMEMBERED).map(i -> FreePorts.one(LOOPBACK)).toArray();

        assertThat(ports).doesNotHaveDuplicates();
    }

    @Test
    void portsAreChosenBelowTheRangeTheSystemHandsOutByItself() throws IOException {
        Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        assumeTrue(Files.isReadable(range), "the system does not say which ports it hands out by itself (Linux's "
                + "ip_local_port_range)");
        assertThat(FreePorts.SYSTEM_RANGE_START).as("read from " + range)
                .isEqualTo(Integer.parseInt(Files.readAllLines(range).getFirst().trim().split("\\s+")[0]));
        assumeTrue(FreePorts.SYSTEM_RANGE_START - FreePorts.FLOOR >= 64, "no room below the system's range");
        int[] ports = FreePorts.of(LOOPBACK, 64);
        assertThat(IntStream.of(ports).boxed().toList())
                .allSatisfy(port -> assertThat(port).isBetween(FreePorts.FLOOR, FreePorts.SYSTEM_RANGE_START - 1));
        try (ServerSocket system = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
            assertThat(system.getLocalPort()).as("a bind to port 0 lands in the system's range, apart from ours")
                    .isGreaterThanOrEqualTo(FreePorts.SYSTEM_RANGE_START);
        }
    }

    @Test
    void theSystemsRangeIsReadFromItsFileOrUnknown(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("ip_local_port_range");
        Files.writeString(file, "32768\t60999\n");
        assertThat(FreePorts.systemRangeStart(file)).isEqualTo(32768);
        Files.writeString(file, "garbage");
        assertThat(FreePorts.systemRangeStart(file)).isZero();
        assertThat(FreePorts.systemRangeStart(dir.resolve("absent"))).isZero();
    }

    @Test
    void atLeastOnePortIsAskedFor() {
        assertThatThrownBy(() -> FreePorts.of(LOOPBACK, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}

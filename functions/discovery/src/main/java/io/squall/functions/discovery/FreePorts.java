package io.squall.functions.discovery;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.SequencedSet;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free TCP ports for servers that bind them later: a stage process this process starts, or a cluster member it is
 * about to start. Such a port is released before its server binds it, and the system may hand it out again
 * meanwhile: one at a time, two choices in a row returned the same port (seen in CI), and two servers raced for it.
 * So the sockets of one call stay open until all its ports are chosen, and this process never hands out a port again
 * while it is among the last {@value #REMEMBERED} it handed out.
 *
 * <p>Where the system says which ports it hands out by itself (Linux's {@code ip_local_port_range}: a bind to port 0,
 * the local end of an outgoing connection), the ports are chosen below that range, so that no such choice of any
 * process (a Netty server on port 0, a Hazelcast member connecting out) can take one before its server binds it.
 * Only a server binding that very port by number still can. Elsewhere the system chooses, as a bind to port 0.
 *
 * <p>Thread-safe.
 */
public final class FreePorts {

    /** How many of the ports handed out last are never handed out again: far more than are ever waiting to be bound. */
    static final int REMEMBERED = 1024;

    /** The lowest port chosen below the system's own range: above the well-known services' usual ports. */
    static final int FLOOR = 16384;
    /** Bind attempts at random ports below the system's range before letting the system choose. */
    private static final int TRIES = 64;
    /** The first port of the range the system hands out by itself, or 0 when it is not known. */
    static final int SYSTEM_RANGE_START = systemRangeStart(Path.of("/proc/sys/net/ipv4/ip_local_port_range"));

    /** The ports handed out last, oldest first; guarded by {@code FreePorts.class}. */
    private static final SequencedSet<Integer> HANDED_OUT = new LinkedHashSet<>();

    private FreePorts() {
    }

    /** A free port on {@code host}, not one of the ports this process handed out last. */
    public static int one(String host) {
        return of(host, 1)[0];
    }

    /** {@code n} distinct free ports on {@code host}, none of them among the ports this process handed out last. */
    public static synchronized int[] of(String host, int n) {
        Objects.requireNonNull(host, "host");
        if (n < 1) {
            throw new IllegalArgumentException("at least one port must be asked for");
        }
        // a port handed out lately stays held too, so the system offers another; at most REMEMBERED + n sockets
        List<ServerSocket> held = new ArrayList<>();
        try {
            InetAddress address = InetAddress.getByName(host);
            int[] ports = new int[n];
            int chosen = 0;
            while (chosen < n) {
                ServerSocket socket = bind(address);
                held.add(socket);
                if (remember(socket.getLocalPort())) {
                    ports[chosen++] = socket.getLocalPort();
                }
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (ServerSocket socket : held) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // the port was only held while the others were chosen
                }
            }
        }
    }

    /** A socket on a free port below the system's range when there is room there, else on one the system chose. */
    private static ServerSocket bind(InetAddress address) throws IOException {
        if (SYSTEM_RANGE_START - FLOOR >= TRIES) {
            for (int i = 0; i < TRIES; i++) {
                try {
                    return new ServerSocket(ThreadLocalRandom.current().nextInt(FLOOR, SYSTEM_RANGE_START), 1, address);
                } catch (BindException taken) {
                    // in use: try another
                }
            }
        }
        return new ServerSocket(0, 1, address);
    }

    /** The first port of the range in {@code file} ("32768	60999"), or 0 if there is no such file or it is unreadable. */
    static int systemRangeStart(Path file) {
        // a line at a time: Files.readString took a procfs file's size of 0 at its word and returned "3"
        try (BufferedReader reader = Files.newBufferedReader(file)) {
            String line = reader.readLine();
            return line == null ? 0 : Integer.parseInt(line.trim().split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /** Records {@code port} as handed out; false if it was handed out lately. */
    private static boolean remember(int port) {
        if (!HANDED_OUT.add(port)) {
            return false;
        }
        if (HANDED_OUT.size() > REMEMBERED) {
            HANDED_OUT.removeFirst();
        }
        return true;
    }
}

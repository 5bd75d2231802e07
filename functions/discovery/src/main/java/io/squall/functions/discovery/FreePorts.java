package io.squall.functions.discovery;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.SequencedSet;

/**
 * Free TCP ports for servers that bind them later: a stage process this process starts, or a cluster member it is
 * about to start. Such a port is released before its server binds it, and the system may hand it out again
 * meanwhile: one at a time, two choices in a row returned the same port (seen in CI), and two servers raced for it.
 * So the sockets of one call stay open until all its ports are chosen, and this process never hands out a port again
 * while it is among the last {@value #REMEMBERED} it handed out. Other processes, and servers that bind port 0
 * themselves, may still take a port before its server binds it.
 *
 * <p>Thread-safe.
 */
public final class FreePorts {

    /** How many of the ports handed out last are never handed out again: far more than are ever waiting to be bound. */
    static final int REMEMBERED = 1024;

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
                ServerSocket socket = new ServerSocket(0, 1, address);
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

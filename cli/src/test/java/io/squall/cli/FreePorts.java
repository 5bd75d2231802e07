package io.squall.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Free loopback ports for processes a test starts. */
final class FreePorts {

    private FreePorts() {
    }

    static int one() {
        return of(1)[0];
    }

    /**
     * {@code n} distinct free ports. The sockets stay open until all are chosen. Chosen one at a time, the system
     * may hand out a port it has just given; the grid member of {@code squall serve} then took the gateway's port,
     * and serve exited (seen in CI).
     */
    static int[] of(int n) {
        ServerSocket[] sockets = new ServerSocket[n];
        try {
            int[] ports = new int[n];
            for (int i = 0; i < n; i++) {
                sockets[i] = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                ports[i] = sockets[i].getLocalPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (ServerSocket socket : sockets) {
                if (socket != null) {
                    try {
                        socket.close();
                    } catch (IOException ignored) {
                        // the port was only held while the others were chosen
                    }
                }
            }
        }
    }
}

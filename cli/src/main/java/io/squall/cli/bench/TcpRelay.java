package io.squall.cli.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP relay on loopback that a chaos test puts between stages (a worker advertises the relay's port with
 * {@code squall worker --advertise}) and controls: it can {@link #cut()} every connection through it at once (the
 * peers see a reset, as when a link or a middlebox drops), and make the link {@link #slow(Duration, long) slow} (each
 * chunk of bytes held back by a delay, and the bytes paced to a rate). Connections opened after a cut pass again.
 *
 * <p>Two platform threads per connection, one per direction, each copying through a 16 KiB buffer. Thread-safe.
 */
final class TcpRelay implements AutoCloseable {

    private static final int BUFFER = 16 * 1024;

    private final ServerSocket server;
    private final InetSocketAddress target;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile long delayNanos;
    private volatile long bytesPerSecond;

    /** Listens on loopback {@code port} and forwards every connection to {@code target}. */
    TcpRelay(int port, InetSocketAddress target) throws IOException {
        this.target = target;
        this.server = new ServerSocket(port, 50, InetAddress.getLoopbackAddress());
        Thread.ofPlatform().name("relay-accept-" + port()).daemon(true).start(this::accept);
    }

    /** The port peers connect to. */
    int port() {
        return server.getLocalPort();
    }

    /** Resets every connection through the relay now; new ones are relayed as before. */
    void cut() {
        for (Socket socket : open) {
            try {
                socket.setSoLinger(true, 0); // an RST, not a FIN: the peers see the link break, not a polite close
                socket.close();
            } catch (IOException e) {
                // already closed
            }
        }
    }

    /**
     * Makes the link slow in both directions: every chunk read waits {@code delay} before it is passed on, and the
     * bytes go at most {@code bytesPerSecond} (0: no pacing). {@code slow(Duration.ZERO, 0)} restores a fast link.
     */
    void slow(Duration delay, long bytesPerSecond) {
        this.delayNanos = delay.toNanos();
        this.bytesPerSecond = bytesPerSecond;
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket in = server.accept();
                Socket out = new Socket();
                try {
                    out.connect(target, 10_000);
                } catch (IOException e) {
                    in.setSoLinger(true, 0);
                    in.close(); // the target is down: the peer sees the connection refused as a reset
                    out.close();
                    continue;
                }
                in.setTcpNoDelay(true);
                out.setTcpNoDelay(true);
                open.add(in);
                open.add(out);
                Thread.ofPlatform().name("relay-up-" + port()).daemon(true).start(() -> pump(in, out));
                Thread.ofPlatform().name("relay-down-" + port()).daemon(true).start(() -> pump(out, in));
            } catch (IOException e) {
                if (!server.isClosed()) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10)); // accept failed (out of descriptors?): retry
                }
            }
        }
    }

    /** Copies {@code from} to {@code to} until either side ends, then closes both. */
    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[BUFFER];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            for (int n; (n = in.read(buffer)) != -1; ) {
                hold(n);
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // one side broke (or was cut): the other goes too, below
        } finally {
            close(from);
            close(to);
        }
    }

    /** The delay and pacing of a slow link for a chunk of {@code bytes}. */
    private void hold(int bytes) {
        long rate = bytesPerSecond;
        long wait = delayNanos + (rate > 0 ? TimeUnit.SECONDS.toNanos(bytes) / rate : 0);
        long until = System.nanoTime() + wait;
        for (long left = wait; left > 0; left = until - System.nanoTime()) {
            LockSupport.parkNanos(left); // the link's latency: what this relay simulates
        }
    }

    private void close(Socket socket) {
        open.remove(socket);
        try {
            socket.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            // closing anyway
        }
        cut();
    }
}

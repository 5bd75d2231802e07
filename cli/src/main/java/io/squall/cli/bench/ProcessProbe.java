package io.squall.cli.bench;

import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;

import javax.management.MBeanServerConnection;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * What a soak samples from the serving JVM, by process id: over JMX, through the JDK's attach API (the probe runs
 * as the same user on the same host), the heap used right after a full collection that the probe itself asks for
 * (so each sample is the live heap, not wherever the collector happened to be), the direct buffer pool and the
 * live threads; from {@code /proc} (Linux) the resident set and the open file descriptors. Asking for a full GC
 * every sample costs the server one collection per interval. Not thread-safe.
 */
final class ProcessProbe implements AutoCloseable {

    /**
     * One sample.
     *
     * @param heapAfterGcBytes   heap used right after a full GC
     * @param heapCommittedBytes heap the JVM holds from the OS (part of the RSS; G1 grows it under allocation
     *                           pressure and gives it back lazily)
     * @param rssBytes           resident set size ({@code VmRSS})
     * @param threads            live JVM threads
     * @param openFiles          open file descriptors (sockets included)
     * @param directBytes        memory of the JDK's direct buffer pool ({@code ByteBuffer.allocateDirect})
     * @param directBuffers      buffers in that pool
     */
    record Sample(long heapAfterGcBytes, long heapCommittedBytes, long rssBytes, int threads, int openFiles,
                  long directBytes, long directBuffers) {
    }

    private final long pid;
    private final JMXConnector connector;
    private final MemoryMXBean memory;
    private final ThreadMXBean threads;
    private final BufferPoolMXBean direct;

    /** @throws IllegalStateException if the process is not a JVM this user can attach to */
    ProcessProbe(long pid) {
        this.pid = pid;
        String address;
        try {
            VirtualMachine vm = VirtualMachine.attach(Long.toString(pid));
            try {
                address = vm.startLocalManagementAgent();
            } finally {
                vm.detach();
            }
            connector = JMXConnectorFactory.connect(new JMXServiceURL(address));
            MBeanServerConnection server = connector.getMBeanServerConnection();
            memory = ManagementFactory.newPlatformMXBeanProxy(server, ManagementFactory.MEMORY_MXBEAN_NAME, MemoryMXBean.class);
            threads = ManagementFactory.newPlatformMXBeanProxy(server, ManagementFactory.THREAD_MXBEAN_NAME, ThreadMXBean.class);
            List<BufferPoolMXBean> pools = ManagementFactory.getPlatformMXBeans(server, BufferPoolMXBean.class);
            direct = pools.stream().filter(p -> p.getName().equals("direct")).findFirst()
                    .orElseThrow(() -> new IllegalStateException("process " + pid + " has no direct buffer pool"));
        } catch (AttachNotSupportedException | IOException e) {
            throw new IllegalStateException("cannot attach to JVM process " + pid + ": " + e.getMessage(), e);
        }
    }

    /** Whether the process still runs. */
    boolean alive() {
        return Files.isDirectory(Path.of("/proc", Long.toString(pid)));
    }

    /** Asks for a full GC, then reads every figure. */
    Sample sample() {
        memory.gc();
        MemoryUsage heap = memory.getHeapMemoryUsage();
        return new Sample(heap.getUsed(), heap.getCommitted(), rss(), threads.getThreadCount(), openFiles(), direct.getMemoryUsed(), direct.getCount());
    }

    private long rss() {
        try (Stream<String> lines = Files.lines(Path.of("/proc", Long.toString(pid), "status"))) {
            String line = lines.filter(l -> l.startsWith("VmRSS:")).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no VmRSS in /proc/" + pid + "/status"));
            return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024; // "VmRSS:  123456 kB"
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private int openFiles() {
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            return (int) fds.count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            connector.close();
        } catch (IOException e) {
            // the process may be gone: nothing to release on our side
        }
    }
}

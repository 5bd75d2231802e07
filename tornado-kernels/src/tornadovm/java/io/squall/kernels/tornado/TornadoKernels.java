package io.squall.kernels.tornado;

import io.squall.kernels.GgmlType;
import io.squall.kernels.KernelArguments;
import io.squall.kernels.Kernels;
import io.squall.kernels.PagedKv;
import io.squall.kernels.WeightMatrix;
import io.squall.kernels.cpu.CpuKernels;
import io.squall.kernels.cpu.RoundedActivations;
import io.squall.kernels.custom.CustomKernel;
import io.squall.kernels.reference.ReferenceKernels;
import uk.ac.manchester.tornado.api.TornadoRuntime;
import uk.ac.manchester.tornado.api.common.TornadoDevice;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import uk.ac.manchester.tornado.api.runtime.TornadoRuntimeProvider;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@link Kernels} on a TornadoVM device: the {@link DeviceKernels} compiled by TornadoVM's JIT (OpenCL
 * C for PoCL or a GPU's OpenCL driver, PTX for NVIDIA GPUs). Weights stay resident in per-format
 * {@link WeightArena}s from the first launch on; KV pages stay resident in the {@link KvMirror} of the
 * attention graph, which receives only what it lacks; activations cross with each operation, rounded to 8 bits
 * per block on the way where the CPU executor rounds them (before Q8_0 and Q4_0 weights), so both executors
 * multiply the same values.
 * Q, K and V (and gate and up) multiply in one fused launch when they share an arena.
 *
 * <p>What the device cannot run goes to a host executor, reported once per cause on the
 * {@code io.squall.kernels.Kernels} logger: the formats without a device kernel (BF16, Q4_K, Q6_K),
 * embedding lookups (a row read on the host), and any kernel that TornadoVM fails to compile or run
 * (a bailout), which then stays on the host. The executor asks TornadoVM not to recover bailouts
 * silently ({@code tornado.recover.bailout=False}) unless the JVM sets that property itself.
 *
 * <p>Thread-safety: one operation at a time, like every {@link Kernels}.
 */
public final class TornadoKernels implements Kernels {

    private static final Logger LOG = LoggerFactory.getLogger(Kernels.class);

    private final TornadoDevice device;
    private final int local;
    private final Kernels host;
    private final Map<GgmlType, List<WeightArena>> arenas = new EnumMap<>(GgmlType.class);
    private final Map<WeightMatrix, WeightArena> placement = new IdentityHashMap<>();
    private final Set<String> reported = Collections.synchronizedSet(new LinkedHashSet<>());
    private final VectorOps vectors;
    private final AttentionOp attention;
    private final CustomOps custom;
    private final WeightMatrix[] fused = new WeightMatrix[WeightArena.MAX_FUSED];
    private final float[][] fusedOut = new float[WeightArena.MAX_FUSED][];
    /** The CPU executor's 8-bit activation rounding, so device and CPU products use the same activations. */
    private final RoundedActivations rounding = new RoundedActivations();
    private boolean attentionOnHost;

    private TornadoKernels(TornadoDevice device, Kernels host) {
        this.device = device;
        long[] maxGroup = device.getDeviceMaxWorkgroupDimensions();
        int limit = maxGroup == null || maxGroup.length == 0 ? DeviceKernels.LOCAL
                : (int) Math.min(DeviceKernels.LOCAL, maxGroup[0]);
        this.local = Integer.highestOneBit(Math.max(1, limit));
        this.host = host;
        this.vectors = new VectorOps(device, local);
        this.attention = new AttentionOp(device, local);
        this.custom = new CustomOps(device);
    }

    /**
     * The executor on TornadoVM's default device, with the CPU executor (or the reference) for what
     * stays on the host.
     *
     * @throws IllegalStateException if TornadoVM has no backend or device here
     */
    public static TornadoKernels open() {
        if (System.getProperty("tornado.recover.bailout") == null) {
            System.setProperty("tornado.recover.bailout", "False");
        }
        TornadoRuntime runtime = TornadoRuntimeProvider.getTornadoRuntime();
        if (runtime.getNumBackends() == 0 || runtime.getBackend(0).getNumDevices() == 0) {
            throw new IllegalStateException("TornadoVM found no device (check `tornado --devices`)");
        }
        TornadoDevice device = runtime.getDefaultDevice();
        Kernels host = ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent() && CpuKernels.isSupported()
                ? new CpuKernels(Integer.getInteger("squall.kernels.threads", Runtime.getRuntime().availableProcessors()))
                : new ReferenceKernels();
        return new TornadoKernels(device, host);
    }

    @Override
    public boolean compiledAsTheyRun() {
        return false;
    }

    @Override
    public String name() {
        return "tornadovm(" + device.getPhysicalDevice().getDeviceName().trim() + ", "
                + device.getPlatformName().trim() + ", work-groups of " + local + "; host ops on " + host.name() + ")";
    }

    /** The causes of every operation sent to the host executor so far, in the order first reported. */
    public Set<String> hostOperations() {
        synchronized (reported) {
            return Set.copyOf(reported);
        }
    }

    /** Reports, once per {@code cause}, that an operation runs on the host executor. */
    private void report(String cause, String detail) {
        if (reported.add(cause)) {
            LOG.warn("TornadoVM executor: {} runs on the host executor ({})", cause, detail);
        }
    }

    @Override
    public void prepare(List<WeightMatrix> weights) {
        Map<GgmlType, List<WeightMatrix>> fresh = new EnumMap<>(GgmlType.class);
        Set<WeightMatrix> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (WeightMatrix w : weights) {
            if (placement.containsKey(w) || !seen.add(w)) {
                continue;
            }
            if (!WeightArena.supports(w.type())) {
                report(w.type() + " matmul", "no device kernel for " + w.type());
                continue;
            }
            fresh.computeIfAbsent(w.type(), t -> new ArrayList<>()).add(w);
        }
        fresh.forEach((type, list) -> {
            for (WeightArena arena : WeightArena.of(type, list, device, local)) {
                arenas.computeIfAbsent(type, t -> new ArrayList<>()).add(arena);
                for (WeightMatrix w : arena.matrices()) {
                    placement.put(w, arena);
                }
            }
        });
    }

    @Override
    public void matmul(WeightMatrix w, float[] x, float[] out, int batch) {
        KernelArguments.matmul(w, x, out, batch);
        fused[0] = w;
        fusedOut[0] = out;
        multiply(fused, fusedOut, 1, x, batch);
    }

    @Override
    public void matmulMany(WeightMatrix[] ws, float[] x, float[][] outs, int batch) {
        KernelArguments.matmulMany(ws, x, outs, batch);
        int i = 0;
        while (i < ws.length) { // runs of matrices in one arena go in one launch
            WeightArena arena = arenaOf(ws[i]);
            int n = 0;
            while (i + n < ws.length && n < WeightArena.MAX_FUSED && arena != null && arenaOf(ws[i + n]) == arena) {
                fused[n] = ws[i + n];
                fusedOut[n] = outs[i + n];
                n++;
            }
            if (n == 0) {
                fused[0] = ws[i];
                fusedOut[0] = outs[i];
                n = 1;
            }
            multiply(fused, fusedOut, n, x, batch);
            i += n;
        }
    }

    private WeightArena arenaOf(WeightMatrix w) {
        WeightArena arena = placement.get(w);
        if (arena == null && WeightArena.supports(w.type())) {
            prepare(List.of(w));
            arena = placement.get(w);
        }
        return arena;
    }

    private void multiply(WeightMatrix[] ws, float[][] outs, int count, float[] x, int batch) {
        try {
            WeightArena arena = arenaOf(ws[0]);
            String failure = "matmul " + ws[0].type();
            if (arena != null && !reported.contains(failure)) {
                try {
                    arena.multiply(ws, count, rounding.of(ws[0].type(), x, batch * ws[0].cols()), outs, batch);
                    return;
                } catch (DeviceOp.DeviceFailure e) {
                    report(failure, e.getMessage());
                }
            }
            for (int i = 0; i < count; i++) {
                host.matmul(ws[i], x, outs[i], batch);
            }
        } finally {
            Arrays.fill(fused, null);
            Arrays.fill(fusedOut, null);
        }
    }

    @Override
    public void dequantizeRow(WeightMatrix w, int row, float[] out, int offset) {
        host.dequantizeRow(w, row, out, offset); // one row of the mapped embedding: cheaper than a launch
    }

    @Override
    public void rmsnorm(float[] out, float[] x, float[] weight, int rows, int dim, float eps) {
        KernelArguments.rows(out, x, weight, rows, dim);
        if (!onDevice("rmsnorm", () -> vectors.rmsnorm(out, x, weight, rows, dim, eps))) {
            host.rmsnorm(out, x, weight, rows, dim, eps);
        }
    }

    @Override
    public void rope(float[] x, int batch, int[] positions, int heads, int headDim, int rotaryDim, float[] cos,
                     float[] sin, boolean neox) {
        KernelArguments.rope(x, batch, positions, heads, headDim, rotaryDim, cos, sin);
        if (!onDevice("rope", () -> vectors.rope(x, batch, positions, heads, headDim, rotaryDim, cos, sin, neox))) {
            host.rope(x, batch, positions, heads, headDim, rotaryDim, cos, sin, neox);
        }
    }

    @Override
    public void attention(float[] q, PagedKv kv, float[] out, int batch, int startPos, int heads, int kvHeads,
                          int headDim, float scale) {
        KernelArguments.attention(q, kv, out, batch, startPos, heads, kvHeads, headDim);
        attention(q, out, new PagedKv[] {kv}, new int[] {batch}, new int[] {startPos}, 1, heads, kvHeads, headDim,
                scale);
    }

    @Override
    public void attention(float[] q, float[] out, PagedKv[] kvs, int[] rows, int[] startPos, int sequences,
                          int heads, int kvHeads, int headDim, float scale) {
        KernelArguments.attention(q, out, kvs, rows, startPos, sequences, heads, kvHeads, headDim);
        if (!attentionOnHost) {
            try {
                attention.run(q, out, kvs, rows, startPos, sequences, heads, kvHeads, headDim, scale);
                return;
            } catch (DeviceOp.DeviceFailure e) {
                attentionOnHost = true;
                report("attention", e.getMessage());
            }
        }
        host.attention(q, out, kvs, rows, startPos, sequences, heads, kvHeads, headDim, scale);
    }

    @Override
    public void siluMul(float[] gate, float[] up, int n) {
        KernelArguments.elements(n, gate, up);
        if (n > 0 && !onDevice("siluMul", () -> vectors.siluMul(gate, up, n))) {
            host.siluMul(gate, up, n);
        }
    }

    @Override
    public void add(float[] acc, float[] x, int n) {
        KernelArguments.elements(n, acc, x);
        if (n > 0 && !onDevice("add", () -> vectors.add(acc, x, n, n))) {
            host.add(acc, x, n);
        }
    }

    @Override
    public void addBias(float[] x, float[] bias, int rows, int dim) {
        KernelArguments.rows(x, x, bias, rows, dim);
        if (!onDevice("add", () -> vectors.add(x, bias, rows * dim, dim))) {
            host.addBias(x, bias, rows, dim);
        }
    }

    @Override
    public void softmax(float[] x, int offset, int n) {
        KernelArguments.range(x, offset, n);
        if (n > 0 && !onDevice("softmax", () -> vectors.softmax(x, offset, n))) {
            host.softmax(x, offset, n);
        }
    }

    @Override
    public void run(CustomKernel kernel, float[] x, float[] y, int n) {
        KernelArguments.elements(n, x, y);
        String cause = "custom kernel " + kernel.name();
        if (n > 0 && !reported.contains(cause)) {
            try {
                custom.run(kernel, x, y, n);
                return;
            } catch (DeviceOp.DeviceFailure e) {
                report(cause, e.getMessage());
            }
        }
        if (n > 0) {
            kernel.reference().apply(x, y, n);
        }
    }

    /** Runs {@code op} on the device unless {@code kernel} has failed there before; false to run it on the host. */
    private boolean onDevice(String kernel, Runnable op) {
        if (reported.contains(kernel)) {
            return false;
        }
        try {
            op.run();
            return true;
        } catch (DeviceOp.DeviceFailure e) {
            report(kernel, e.getMessage());
            return false;
        }
    }

    @Override
    public void close() {
        arenas.values().forEach(list -> list.forEach(WeightArena::close));
        arenas.clear();
        placement.clear();
        vectors.close();
        attention.close();
        custom.close();
        host.close();
    }
}

package io.squall.kernels.tornado;

import io.squall.kernels.GgmlType;
import io.squall.kernels.WeightMatrix;
import uk.ac.manchester.tornado.api.KernelContext;
import uk.ac.manchester.tornado.api.common.TornadoDevice;
import uk.ac.manchester.tornado.api.enums.DataTransferMode;
import uk.ac.manchester.tornado.api.types.arrays.ByteArray;
import uk.ac.manchester.tornado.api.types.arrays.FloatArray;
import uk.ac.manchester.tornado.api.types.arrays.IntArray;
import uk.ac.manchester.tornado.api.types.arrays.TornadoNativeArray;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Weights of one format resident on the device: their GGML bytes (F32 as floats) copied once into
 * one device buffer of at most {@link #MAX_BYTES}, uploaded with the first launch and never again,
 * and the matmul kernel for that format over them. One launch multiplies one shared input by one to
 * {@link #MAX_FUSED} of its matrices (Q, K and V; gate and up) on a grid of their stacked rows.
 *
 * <p>The input and output buffers grow by doubling; growing rebuilds the graph, which uploads the
 * weights again. Not thread-safe.
 */
final class WeightArena implements AutoCloseable {

    /** The largest arena, in bytes: device buffers are indexed by {@code int}. */
    static final long MAX_BYTES = 1L << 30;
    /** The most matrices one launch multiplies. */
    static final int MAX_FUSED = 4;

    private static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED;

    private final GgmlType type;
    private final TornadoDevice device;
    private final int local;
    private final TornadoNativeArray weights;
    private final Map<WeightMatrix, Integer> offsets = new IdentityHashMap<>();
    private final IntArray params = new IntArray(DeviceKernels.MATMUL_HEADER + MAX_FUSED * DeviceKernels.MATMUL_ENTRY);
    private FloatArray x = new FloatArray(1);
    private FloatArray out = new FloatArray(1);
    private DeviceOp op;

    private WeightArena(GgmlType type, List<WeightMatrix> matrices, long bytes, TornadoDevice device, int local) {
        this.type = type;
        this.device = device;
        this.local = local;
        if (type == GgmlType.F32) {
            FloatArray floats = new FloatArray((int) (bytes / Float.BYTES));
            weights = floats;
        } else {
            weights = new ByteArray((int) bytes);
        }
        MemorySegment data = weights.getSegment();
        long at = 0;
        for (WeightMatrix w : matrices) {
            MemorySegment.copy(w.data(), 0, data, at, w.data().byteSize());
            offsets.put(w, (int) (type == GgmlType.F32 ? at / Float.BYTES : at));
            at += w.data().byteSize();
        }
    }

    /** Whether the device kernels read {@code type} (the others run on the host executor). */
    static boolean supports(GgmlType type) {
        return type == GgmlType.F32 || type == GgmlType.F16 || type == GgmlType.Q8_0 || type == GgmlType.Q4_0;
    }

    /** Arenas holding {@code matrices} (all of {@code type}), as few as {@link #MAX_BYTES} allows. */
    static List<WeightArena> of(GgmlType type, List<WeightMatrix> matrices, TornadoDevice device, int local) {
        List<WeightArena> arenas = new ArrayList<>();
        List<WeightMatrix> chunk = new ArrayList<>();
        long bytes = 0;
        for (WeightMatrix w : matrices) {
            if (w.data().byteSize() > MAX_BYTES) {
                throw new IllegalArgumentException(w.name() + ": " + w.data().byteSize()
                        + " bytes exceed the device arena of " + MAX_BYTES);
            }
            if (bytes + w.data().byteSize() > MAX_BYTES) {
                arenas.add(new WeightArena(type, chunk, bytes, device, local));
                chunk = new ArrayList<>();
                bytes = 0;
            }
            chunk.add(w);
            bytes += w.data().byteSize();
        }
        if (!chunk.isEmpty()) {
            arenas.add(new WeightArena(type, chunk, bytes, device, local));
        }
        return arenas;
    }

    /** The matrices this arena holds. */
    Iterable<WeightMatrix> matrices() {
        return offsets.keySet();
    }

    boolean holds(WeightMatrix w) {
        return offsets.containsKey(w);
    }

    /**
     * {@code outs[i] = ws[i] · x} for {@code batch} rows; every {@code ws[i]} is held here, shares
     * {@code x}'s columns, and {@code ws.length ≤ MAX_FUSED}.
     */
    void multiply(WeightMatrix[] ws, int count, float[] input, float[][] outs, int batch) {
        int cols = ws[0].cols();
        int totalRows = 0;
        for (int i = 0; i < count; i++) {
            totalRows += ws[i].rows();
        }
        ensure(batch * cols, batch * totalRows);
        MemorySegment.copy(input, 0, x.getSegment(), FLOAT, 0, batch * cols);
        params.set(0, count);
        params.set(1, cols);
        params.set(2, batch);
        int firstRow = 0;
        int outOffset = 0;
        for (int i = 0; i < count; i++) {
            int e = DeviceKernels.MATMUL_HEADER + i * DeviceKernels.MATMUL_ENTRY;
            params.set(e, ws[i].rows());
            params.set(e + 1, offsets.get(ws[i]));
            params.set(e + 2, outOffset);
            params.set(e + 3, firstRow);
            firstRow += ws[i].rows();
            outOffset += batch * ws[i].rows();
        }
        op.grid(0, (long) totalRows * local, batch, local).run();
        outOffset = 0;
        for (int i = 0; i < count; i++) {
            int n = batch * ws[i].rows();
            MemorySegment.copy(out.getSegment(), FLOAT, 4L * outOffset, outs[i], 0, n);
            outOffset += n;
        }
    }

    private void ensure(int inputs, int outputs) {
        if (op != null && x.getSize() >= inputs && out.getSize() >= outputs) {
            return;
        }
        if (op != null) {
            op.close();
        }
        if (x.getSize() < inputs) {
            x = new FloatArray(Math.max(inputs, 2 * x.getSize()));
        }
        if (out.getSize() < outputs) {
            out = new FloatArray(Math.max(outputs, 2 * out.getSize()));
        }
        KernelContext context = new KernelContext();
        FloatArray in = x;
        FloatArray result = out;
        op = new DeviceOp("matmul " + type, new int[] {2}, device, graph -> {
            graph.transferToDevice(DataTransferMode.FIRST_EXECUTION, weights)
                    .transferToDevice(DataTransferMode.EVERY_EXECUTION, in, params);
            switch (type) {
                case F32 -> graph.task("t0", DeviceKernels::matmulF32, context, (FloatArray) weights, in, result, params);
                case F16 -> graph.task("t0", DeviceKernels::matmulF16, context, (ByteArray) weights, in, result, params);
                case Q8_0 -> graph.task("t0", DeviceKernels::matmulQ8_0, context, (ByteArray) weights, in, result, params);
                case Q4_0 -> graph.task("t0", DeviceKernels::matmulQ4_0, context, (ByteArray) weights, in, result, params);
                default -> throw new IllegalStateException("no device matmul for " + type);
            }
            graph.transferToHost(DataTransferMode.EVERY_EXECUTION, result);
        });
    }

    @Override
    public void close() {
        if (op != null) {
            op.close();
            op = null;
        }
    }
}

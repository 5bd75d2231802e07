package io.squall.kernels.tornado;

import uk.ac.manchester.tornado.api.KernelContext;
import uk.ac.manchester.tornado.api.TaskGraph;
import uk.ac.manchester.tornado.api.common.TornadoDevice;
import uk.ac.manchester.tornado.api.enums.DataTransferMode;
import uk.ac.manchester.tornado.api.types.arrays.FloatArray;
import uk.ac.manchester.tornado.api.types.arrays.IntArray;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.Consumer;

/**
 * The row and element-wise operations on the device: RMS norm, rope, SwiGLU, residual and bias adds,
 * softmax. Each has its own graph and buffers, built on first use and rebuilt when a call needs
 * larger buffers (by doubling). Inputs are copied into the buffers, uploaded, and the results copied
 * back into the caller's arrays. Not thread-safe.
 */
final class VectorOps implements AutoCloseable {

    private static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED;

    /** One operation's graph and its buffers: {@code a} updated in place, {@code b} and {@code c} inputs. */
    private final class Op implements AutoCloseable {
        final String name;
        final IntArray params = new IntArray(5);
        final FloatArray scalars = new FloatArray(1);
        FloatArray a = new FloatArray(1);
        FloatArray b = new FloatArray(1);
        FloatArray c = new FloatArray(1);
        DeviceOp op;
        private final Consumer<Op> tasks;

        Op(String name, Consumer<Op> tasks) {
            this.name = name;
            this.tasks = tasks;
        }

        /** Makes room for {@code na}, {@code nb} and {@code nc} floats, rebuilding the graph if they grow. */
        Op ensure(int na, int nb, int nc) {
            if (op != null && a.getSize() >= na && b.getSize() >= nb && c.getSize() >= nc) {
                return this;
            }
            close();
            a = a.getSize() >= na ? a : new FloatArray(Math.max(na, 2 * a.getSize()));
            b = b.getSize() >= nb ? b : new FloatArray(Math.max(nb, 2 * b.getSize()));
            c = c.getSize() >= nc ? c : new FloatArray(Math.max(nc, 2 * c.getSize()));
            tasks.accept(this);
            return this;
        }

        /** Builds the graph: uploads {@code inputs}, runs {@code task}, downloads {@link #a}. */
        void build(Consumer<TaskGraph> task, Object... inputs) {
            op = new DeviceOp(name, new int[] {1}, device, graph -> {
                graph.transferToDevice(DataTransferMode.EVERY_EXECUTION, inputs);
                task.accept(graph);
                graph.transferToHost(DataTransferMode.EVERY_EXECUTION, a);
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

    private final TornadoDevice device;
    private final int local;
    private final KernelContext context = new KernelContext();
    private final Op rmsnorm = new Op("rmsnorm", o -> o.build(g -> g.task("t0", DeviceKernels::rmsnorm, context,
            o.a, o.b, o.params, o.scalars), o.a, o.b, o.params, o.scalars));
    private final Op rope = new Op("rope", o -> o.build(g -> g.task("t0", DeviceKernels::rope, context, o.a, o.b, o.c,
            o.params), o.a, o.b, o.c, o.params));
    private final Op siluMul = new Op("siluMul", o -> o.build(g -> g.task("t0", DeviceKernels::siluMul, context, o.a,
            o.b, o.params), o.a, o.b, o.params));
    private final Op add = new Op("add", o -> o.build(g -> g.task("t0", DeviceKernels::add, context, o.a, o.b,
            o.params), o.a, o.b, o.params));
    private final Op softmax = new Op("softmax", o -> o.build(g -> g.task("t0", DeviceKernels::softmax, context, o.a,
            o.params), o.a, o.params));
    private float[] cosRows = new float[0];
    private float[] sinRows = new float[0];

    VectorOps(TornadoDevice device, int local) {
        this.device = device;
        this.local = local;
    }

    void rmsnorm(float[] out, float[] x, float[] weight, int rows, int dim, float eps) {
        Op o = rmsnorm.ensure(rows * dim, dim, 1);
        MemorySegment.copy(x, 0, o.a.getSegment(), FLOAT, 0, rows * dim);
        MemorySegment.copy(weight, 0, o.b.getSegment(), FLOAT, 0, dim);
        o.params.set(0, rows);
        o.params.set(1, dim);
        o.scalars.set(0, eps);
        o.op.grid(0, (long) rows * local, 1, local).run();
        MemorySegment.copy(o.a.getSegment(), FLOAT, 0, out, 0, rows * dim);
    }

    /** Gathers each row's angles from the tables on the host, so only {@code batch·rotaryDim/2} of each cross. */
    void rope(float[] x, int batch, int[] positions, int heads, int headDim, int rotaryDim, float[] cos, float[] sin,
              boolean neox) {
        int half = rotaryDim / 2;
        int n = batch * heads * headDim;
        if (cosRows.length < batch * half) {
            cosRows = new float[batch * half];
            sinRows = new float[batch * half];
        }
        for (int b = 0; b < batch; b++) {
            System.arraycopy(cos, positions[b] * half, cosRows, b * half, half);
            System.arraycopy(sin, positions[b] * half, sinRows, b * half, half);
        }
        Op o = rope.ensure(n, batch * half, batch * half);
        MemorySegment.copy(x, 0, o.a.getSegment(), FLOAT, 0, n);
        MemorySegment.copy(cosRows, 0, o.b.getSegment(), FLOAT, 0, batch * half);
        MemorySegment.copy(sinRows, 0, o.c.getSegment(), FLOAT, 0, batch * half);
        int count = batch * heads * half;
        o.params.set(0, count);
        o.params.set(1, heads);
        o.params.set(2, headDim);
        o.params.set(3, half);
        o.params.set(4, neox ? 1 : 0);
        o.op.grid(0, count, 1, local).run();
        MemorySegment.copy(o.a.getSegment(), FLOAT, 0, x, 0, n);
    }

    void siluMul(float[] gate, float[] up, int n) {
        Op o = siluMul.ensure(n, n, 1);
        MemorySegment.copy(gate, 0, o.a.getSegment(), FLOAT, 0, n);
        MemorySegment.copy(up, 0, o.b.getSegment(), FLOAT, 0, n);
        o.params.set(0, n);
        o.op.grid(0, n, 1, local).run();
        MemorySegment.copy(o.a.getSegment(), FLOAT, 0, gate, 0, n);
    }

    /** {@code acc[i] += x[i mod period]} for {@code i < n}. */
    void add(float[] acc, float[] x, int n, int period) {
        Op o = add.ensure(n, period, 1);
        MemorySegment.copy(acc, 0, o.a.getSegment(), FLOAT, 0, n);
        MemorySegment.copy(x, 0, o.b.getSegment(), FLOAT, 0, period);
        o.params.set(0, n);
        o.params.set(1, period);
        o.op.grid(0, n, 1, local).run();
        MemorySegment.copy(o.a.getSegment(), FLOAT, 0, acc, 0, n);
    }

    void softmax(float[] x, int offset, int n) {
        Op o = softmax.ensure(n, 1, 1);
        MemorySegment.copy(x, offset, o.a.getSegment(), FLOAT, 0, n);
        o.params.set(0, n);
        o.op.grid(0, local, 1, local).run();
        MemorySegment.copy(o.a.getSegment(), FLOAT, 0, x, offset, n);
    }

    @Override
    public void close() {
        rmsnorm.close();
        rope.close();
        siluMul.close();
        add.close();
        softmax.close();
    }
}

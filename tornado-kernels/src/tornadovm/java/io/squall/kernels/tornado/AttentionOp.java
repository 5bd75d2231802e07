package io.squall.kernels.tornado;

import io.squall.kernels.PagedKv;
import uk.ac.manchester.tornado.api.KernelContext;
import uk.ac.manchester.tornado.api.common.TornadoDevice;
import uk.ac.manchester.tornado.api.enums.DataTransferMode;
import uk.ac.manchester.tornado.api.types.arrays.FloatArray;
import uk.ac.manchester.tornado.api.types.arrays.IntArray;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Paged attention on the device: one graph whose first task scatters the staged KV floats into the
 * resident {@link KvMirror} arena and whose second runs {@link DeviceKernels#attention} over it, so
 * the KV pages cross to the device once (plus the new positions of each step). Every buffer grows
 * by doubling; growing rebuilds the graph and empties the mirror. Not thread-safe.
 */
final class AttentionOp implements AutoCloseable {

    private static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    /** The arena's first size, in floats (64 MiB); it grows when one launch needs more. */
    private static final int FIRST_ARENA = 16 << 20;

    private final TornadoDevice device;
    private final int local;
    private final KvMirror mirror = new KvMirror(FIRST_ARENA);
    private final KvMirror.Plan plan = new KvMirror.Plan();
    private final IntArray scatterParams = new IntArray(1);
    private final IntArray params = new IntArray(8);
    private final FloatArray scale = new FloatArray(1);
    private FloatArray q = new FloatArray(1);
    private FloatArray out = new FloatArray(1);
    private FloatArray scores = new FloatArray(1);
    private IntArray tables = new IntArray(1);
    private IntArray rowInfo = new IntArray(1);
    private FloatArray staged = new FloatArray(1);
    private IntArray index = new IntArray(1);
    private FloatArray arena;
    private DeviceOp op;

    AttentionOp(TornadoDevice device, int local) {
        this.device = device;
        this.local = local;
    }

    /** The several-sequence attention of {@link io.squall.kernels.Kernels}, arguments already checked. */
    void run(float[] query, float[] result, PagedKv[] kvs, int[] rows, int[] startPos, int sequences, int heads,
             int kvHeads, int headDim, float scoreScale) {
        int kvDim = kvHeads * headDim;
        int totalRows = 0;
        int context = 0;
        long slotFloats = 0;
        for (int s = 0; s < sequences; s++) {
            totalRows += rows[s];
            context = Math.max(context, startPos[s] + rows[s]);
            long blocks = (startPos[s] + rows[s] + kvs[s].blockSize() - 1) / kvs[s].blockSize();
            slotFloats += blocks * KvMirror.slotFloats(kvs[s], kvDim);
        }
        if (slotFloats > Integer.MAX_VALUE / 2) {
            throw new IllegalArgumentException("attention reads " + slotFloats + " KV floats, more than one device"
                    + " buffer holds");
        }
        int qFloats = totalRows * heads * headDim;
        // Plan until the buffers fit: a rebuilt graph starts with an empty arena, so the launch re-stages.
        for (int attempt = 0; ; attempt++) {
            if (attempt > 4) {
                throw new IllegalStateException("attention buffers did not settle after " + attempt + " rebuilds");
            }
            if (!mirror.plan(plan, kvs, rows, startPos, sequences, kvDim)) {
                mirror.reset((int) Math.max(mirror.capacity(), 2 * slotFloats));
                closeOp();
                continue;
            }
            if (!fits(qFloats, totalRows * heads * context, 3 * totalRows)) {
                rebuild(qFloats, totalRows * heads * context, 3 * totalRows);
                continue;
            }
            break;
        }
        MemorySegment.copy(query, 0, q.getSegment(), FLOAT, 0, qFloats);
        MemorySegment.copy(plan.tables, 0, tables.getSegment(), INT, 0, plan.tableCount);
        MemorySegment.copy(plan.rows, 0, rowInfo.getSegment(), INT, 0, 3 * totalRows);
        MemorySegment.copy(plan.staged, 0, staged.getSegment(), FLOAT, 0, plan.stagedCount);
        MemorySegment.copy(plan.index, 0, index.getSegment(), INT, 0, plan.stagedCount);
        scatterParams.set(0, plan.stagedCount);
        params.set(0, heads);
        params.set(1, kvHeads);
        params.set(2, headDim);
        params.set(3, context);
        scale.set(0, scoreScale);
        op.grid(0, Math.max(1, plan.stagedCount), 1, local)
                .grid(1, (long) totalRows * heads * local, 1, local)
                .run();
        MemorySegment.copy(out.getSegment(), FLOAT, 0, result, 0, qFloats);
    }

    private boolean fits(int qFloats, int scoreFloats, int rowInts) {
        return op != null && arena.getSize() == mirror.capacity() && q.getSize() >= qFloats
                && scores.getSize() >= scoreFloats && tables.getSize() >= plan.tableCount
                && rowInfo.getSize() >= rowInts && staged.getSize() >= plan.stagedCount;
    }

    private void rebuild(int qFloats, int scoreFloats, int rowInts) {
        closeOp();
        if (q.getSize() < qFloats) {
            q = new FloatArray(Math.max(qFloats, 2 * q.getSize()));
            out = new FloatArray(q.getSize());
        }
        if (scores.getSize() < scoreFloats) {
            scores = new FloatArray(Math.max(scoreFloats, 2 * scores.getSize()));
        }
        if (tables.getSize() < plan.tableCount) {
            tables = new IntArray(Math.max(plan.tableCount, 2 * tables.getSize()));
        }
        if (rowInfo.getSize() < rowInts) {
            rowInfo = new IntArray(Math.max(rowInts, 2 * rowInfo.getSize()));
        }
        if (staged.getSize() < plan.stagedCount) {
            staged = new FloatArray(Math.max(plan.stagedCount, 2 * staged.getSize()));
            index = new IntArray(staged.getSize());
        }
        if (arena == null || arena.getSize() != mirror.capacity()) {
            arena = new FloatArray(mirror.capacity());
        }
        mirror.reset(mirror.capacity()); // the new graph's arena starts empty on the device
        KernelContext context = new KernelContext();
        FloatArray kv = arena;
        FloatArray qs = q;
        FloatArray result = out;
        FloatArray scratch = scores;
        IntArray tableBuffer = tables;
        IntArray rowBuffer = rowInfo;
        FloatArray stagedBuffer = staged;
        IntArray indexBuffer = index;
        op = new DeviceOp("attention", new int[] {1, 1}, device, graph -> graph
                .transferToDevice(DataTransferMode.FIRST_EXECUTION, kv, scratch)
                .transferToDevice(DataTransferMode.EVERY_EXECUTION, stagedBuffer, indexBuffer, scatterParams, qs,
                        tableBuffer, rowBuffer, params, scale)
                .task("t0", DeviceKernels::scatter, context, kv, stagedBuffer, indexBuffer, scatterParams)
                .task("t1", DeviceKernels::attention, context, qs, kv, tableBuffer, rowBuffer, result, scratch, params,
                        scale)
                .transferToHost(DataTransferMode.EVERY_EXECUTION, result));
    }

    private void closeOp() {
        if (op != null) {
            op.close();
            op = null;
        }
    }

    @Override
    public void close() {
        closeOp();
    }
}

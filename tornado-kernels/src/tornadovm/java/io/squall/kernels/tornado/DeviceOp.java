package io.squall.kernels.tornado;

import uk.ac.manchester.tornado.api.GridScheduler;
import uk.ac.manchester.tornado.api.ImmutableTaskGraph;
import uk.ac.manchester.tornado.api.TaskGraph;
import uk.ac.manchester.tornado.api.TornadoExecutionPlan;
import uk.ac.manchester.tornado.api.WorkerGrid;
import uk.ac.manchester.tornado.api.WorkerGrid1D;
import uk.ac.manchester.tornado.api.WorkerGrid2D;
import uk.ac.manchester.tornado.api.common.TornadoDevice;
import uk.ac.manchester.tornado.api.exceptions.TornadoExecutionPlanException;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Compiled device kernels: a task graph of one or a few tasks run in order, its execution plan on
 * the executor's device and the grids the tasks launch with. The buffers the graph names are fixed when it is built (a
 * TornadoVM graph binds array objects), so an operation whose buffers must grow builds a new
 * {@code DeviceOp} and {@link #close()}s the old one, releasing its device memory.
 *
 * <p>Not thread-safe: the executor runs one launch at a time.
 */
final class DeviceOp implements AutoCloseable {

    private static final AtomicInteger GRAPHS = new AtomicInteger();

    private final String name;
    private final WorkerGrid[] grids;
    private final TornadoExecutionPlan plan;

    /**
     * @param name the kernel's name, for errors
     * @param dimensions per task ({@code "t0"}, {@code "t1"}, … in the order {@code body} adds them):
     *                   1 or 2 for the dimensions of its launch grid, set before each {@link #run()};
     *                   an op whose only task sizes itself from its loop bounds passes none
     * @param device where the graph runs
     * @param body adds the transfers and the tasks to the graph
     */
    DeviceOp(String name, int[] dimensions, TornadoDevice device, Consumer<TaskGraph> body) {
        this.name = name;
        String graphName = "squall" + GRAPHS.incrementAndGet();
        TaskGraph graph = new TaskGraph(graphName);
        body.accept(graph);
        ImmutableTaskGraph snapshot = graph.snapshot();
        TornadoExecutionPlan built = new TornadoExecutionPlan(snapshot).withDevice(device);
        if (Boolean.getBoolean("squall.tornado.printKernels")) {
            built = built.withPrintKernel(); // the generated OpenCL C or PTX, on standard output
        }
        this.grids = new WorkerGrid[dimensions.length];
        if (dimensions.length > 0) {
            GridScheduler scheduler = new GridScheduler();
            for (int t = 0; t < dimensions.length; t++) {
                grids[t] = dimensions[t] == 1 ? new WorkerGrid1D(1) : new WorkerGrid2D(1, 1);
                scheduler.addWorkerGrid(graphName + ".t" + t, grids[t]);
            }
            built = built.withGridScheduler(scheduler);
        }
        this.plan = built;
    }

    /**
     * Sets task {@code task}'s next launch to {@code globalX × globalY} work-items in work-groups of
     * {@code localX × 1}; {@code globalX} is rounded up to a multiple of {@code localX}.
     */
    DeviceOp grid(int task, long globalX, long globalY, long localX) {
        grids[task].setGlobalWork((globalX + localX - 1) / localX * localX, globalY, 1);
        grids[task].setLocalWork(localX, 1, 1);
        return this;
    }

    /**
     * Runs the graph; blocks until its outputs are back on the host.
     *
     * @throws DeviceFailure if TornadoVM cannot compile or run a kernel
     */
    void run() {
        try {
            plan.execute();
        } catch (RuntimeException | Error e) {
            throw new DeviceFailure(name, e);
        }
    }

    @Override
    public void close() {
        try {
            plan.close();
        } catch (TornadoExecutionPlanException e) {
            throw new DeviceFailure(name, e);
        }
    }

    /** A kernel that TornadoVM could not compile or run on the device (a bailout, an OpenCL error). */
    static final class DeviceFailure extends RuntimeException {
        DeviceFailure(String kernel, Throwable cause) {
            super("TornadoVM could not run " + kernel + ": " + cause, cause);
        }
    }
}

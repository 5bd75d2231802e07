package io.squall.kernels.tornado;

import io.squall.kernels.custom.CustomKernel;
import uk.ac.manchester.tornado.api.common.TornadoDevice;
import uk.ac.manchester.tornado.api.common.TornadoFunctions.Task3;
import uk.ac.manchester.tornado.api.enums.DataTransferMode;

import java.lang.invoke.LambdaMetafactory;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Users' {@link CustomKernel}s on the device. TornadoVM compiles the static method a task names, so
 * the kernel's method becomes a {@code Task3} through {@link LambdaMetafactory} (whose generated
 * {@code apply} calls the method directly, as a {@code MyKernels::gelu} reference does). A graph
 * binds its arrays and its scalar {@code n}, so graphs are cached per (kernel, arrays, n), the most
 * recent {@link #CACHED} kept. Not thread-safe.
 */
final class CustomOps implements AutoCloseable {

    /** Graphs kept; the least recently used beyond this are closed. */
    static final int CACHED = 16;

    private record Key(Method method, float[] x, float[] y, int n) {
    }

    private final TornadoDevice device;
    private final Map<Key, DeviceOp> graphs = new LinkedHashMap<>(16, 0.75f, true);

    CustomOps(TornadoDevice device) {
        this.device = device;
    }

    void run(CustomKernel kernel, float[] x, float[] y, int n) {
        Method method = kernel.kernelMethod();
        Key key = new Key(method, x, y, n);
        DeviceOp op = graphs.get(key);
        if (op == null) {
            Task3<float[], float[], Integer> task = task(method);
            op = new DeviceOp("custom kernel " + kernel.name(), new int[0], device, graph -> graph
                    .transferToDevice(DataTransferMode.EVERY_EXECUTION, x, y)
                    .task("t0", task, x, y, n)
                    .transferToHost(DataTransferMode.EVERY_EXECUTION, x));
            graphs.put(key, op);
            evict();
        }
        op.run();
    }

    @SuppressWarnings("unchecked")
    private static Task3<float[], float[], Integer> task(Method method) {
        try {
            MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(method.getDeclaringClass(), MethodHandles.lookup());
            MethodHandle target = lookup.unreflect(method);
            MethodType erased = MethodType.methodType(void.class, Object.class, Object.class, Object.class);
            MethodType typed = MethodType.methodType(void.class, float[].class, float[].class, Integer.class);
            return (Task3<float[], float[], Integer>) LambdaMetafactory.metafactory(lookup, "apply",
                    MethodType.methodType(Task3.class), erased, target, typed).getTarget().invoke();
        } catch (Throwable e) {
            throw new DeviceOp.DeviceFailure(method.getName(), e);
        }
    }

    private void evict() {
        Iterator<DeviceOp> it = graphs.values().iterator();
        while (graphs.size() > CACHED && it.hasNext()) {
            it.next().close();
            it.remove();
        }
    }

    @Override
    public void close() {
        graphs.values().forEach(DeviceOp::close);
        graphs.clear();
    }
}

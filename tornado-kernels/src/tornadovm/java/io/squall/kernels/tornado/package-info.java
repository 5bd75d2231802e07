/**
 * The TornadoVM executor, compiled only in builds made with a TornadoVM SDK ({@code TORNADOVM_HOME}):
 * {@link io.squall.kernels.tornado.TornadoKernels} runs the {@link io.squall.kernels.tornado.DeviceKernels}
 * through TornadoVM's JIT on its default device, with weights and KV pages resident there. The
 * default build leaves this package out; {@code Kernels.best()} reaches it by reflection.
 */
package io.squall.kernels.tornado;

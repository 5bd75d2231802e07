/**
 * How a user plugs a kernel into Squall: {@link io.squall.examples.customkernel.MyKernels} holds two
 * TornadoVM-style kernels, and the engine runs them on whichever executor is active (see this
 * example's README).
 */
package io.squall.examples.customkernel;

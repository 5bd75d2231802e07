package io.squall.kernels.cpu;

import io.squall.kernels.KernelContract;
import io.squall.kernels.Kernels;

/** Three threads on purpose: more than this machine's cores, so chunks interleave unpredictably. */
class CpuKernelsTest extends KernelContract {

    @Override
    protected Kernels create() {
        return new CpuKernels(3);
    }
}

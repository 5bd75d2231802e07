package io.squall.kernels.reference;

import io.squall.kernels.KernelContract;
import io.squall.kernels.Kernels;

class ReferenceKernelsTest extends KernelContract {

    @Override
    protected Kernels create() {
        return new ReferenceKernels();
    }
}
